import type {
  CompiledAutonomousPolicy,
  CompiledProgressionPolicy,
  CompiledTemporalConstraint,
  RuntimeModel,
} from "../../compiler/index.js";
import { policyDigest } from "../../compiler/index.js";
import type { ResourcePoolCapacity } from "../../manifest/index.js";
import {
  type ExecutionOfferLookup,
  ParticipantAdmissionRules,
  type ToolActionLimits,
} from "../../port/index.js";
import { RuntimeError, RuntimeErrorCode } from "../errors.js";
import type { ResolvedControl, V2Plan } from "../v2/index.js";
import { planBudgets, type V3Plan } from "../v3/index.js";

const RUNNABLE_PROFILE = "participant-autonomous-execution/v1";
const RUNNABLE_STRATEGY = "ordered_cycle";
const V2_PROFILE = "participant-autonomous-execution/v2";
const V3_PROFILE = "participant-autonomous-execution/v3";

/** One participant's schedule under one autonomous policy, ready to run. */
export interface ScheduleSpec {
  readonly policy: CompiledAutonomousPolicy;
  /** RAES's digest of the policy (`policyDigest`), kept in the scheduler record. */
  readonly policyDigest: string;
  readonly participantAddress: string;
  readonly progression: SteppedProgression;
  /** The v1 cadence; absent for v2 schedules. */
  readonly cadence?: CompiledTemporalConstraint;
  /** The v2 schedule: activity policy, participant stream and bounds. */
  readonly v2?: V2Plan;
  /** The v3 budgets (with `v2`, which a v3 schedule runs as is): reserved before every native call. */
  readonly v3?: V3Plan;
  readonly rules: ParticipantAdmissionRules;
  /** A port is attached only when the runtime claims the composition and the participant has a binding. */
  readonly toolActionsEnabled: boolean;
}

/** A progression policy with a positive step, the only kind a schedule runs on. */
export type SteppedProgression = CompiledProgressionPolicy & { readonly stepTicks: number };

/** The advancement modes paced against wall time (RAES's wall driver drives these). */
const WALL_PACED = new Set(["real_time", "dilated"]);

/**
 * The progression a schedule steps by: a `stepped` policy's declared quantum; a `real_time` or `dilated`
 * one (which declares no step) one tick per step, so a paced run moves the clock one tick per tick period
 * ÷ pacing_ratio and reaches every cadence tick, as RAES's wall driver does (docs/guide/operations.md#real-time).
 */
function steppedProgression(
  progression: CompiledProgressionPolicy | undefined,
): SteppedProgression | undefined {
  if (progression === undefined) return undefined;
  if (progression.stepTicks === null && WALL_PACED.has(progression.advancementMode))
    return { ...progression, stepTicks: 1 };
  const step = progression.stepTicks;
  return step === null || step < 1 ? undefined : { ...progression, stepTicks: step };
}

/** Inputs to planning. */
export interface PlanInput {
  readonly model: RuntimeModel;
  readonly offers: ExecutionOfferLookup;
  readonly toolActionLimits: ToolActionLimits | undefined;
  readonly crossingPolicyInstalled: boolean;
  /** Resolved stochastic controls by policy address (v2 policies only). */
  readonly v2Controls?: ReadonlyMap<string, ResolvedControl>;
  /** The manifest's configured resource pools (v3 policies only). */
  readonly resourcePools?: readonly ResourcePoolCapacity[];
}

/** Plans every (policy × participant) schedule, failing closed on anything the v1 scheduler cannot run. */
export function planSchedules(input: PlanInput): ScheduleSpec[] {
  const problems: string[] = [];
  const specs: ScheduleSpec[] = [];
  for (const policy of Object.values(input.model.autonomousPolicies)) {
    const digest = policyDigest(input.model, policy);
    const progression = steppedProgression(input.model.progressionPolicies[policy.progressionPolicyAddress]);
    const cadence =
      policy.cadenceConstraintAddress === undefined
        ? undefined
        : input.model.temporalConstraints[policy.cadenceConstraintAddress];
    const before = problems.length;
    if (policy.profile === V2_PROFILE) {
      // One push per spec: a spread of one per participant overflows the stack for a large model.
      for (const spec of planV2(input, policy, progression, problems))
        specs.push({ ...spec, policyDigest: digest });
      continue;
    }
    if (policy.profile === V3_PROFILE) {
      // docs/guide/harness.md#autonomous-execution-v3: v2's schedule, with the budgets reserved around each call.
      const budgets = planBudgets(policy, input.resourcePools ?? []);
      for (const problem of budgets.problems) problems.push(problem);
      const v2 = planV2(input, policy, progression, problems);
      if (budgets.plan) {
        const v3 = budgets.plan;
        for (const spec of v2) specs.push({ ...spec, v3, policyDigest: digest });
      }
      continue;
    }
    if (policy.profile !== RUNNABLE_PROFILE) {
      problems.push(
        `${policy.address}: profile ${policy.profile} is not run by the reference scheduler (v1 only)`,
      );
    }
    if (policy.selectionStrategy !== RUNNABLE_STRATEGY) {
      problems.push(
        `${policy.address}: selection strategy ${policy.selectionStrategy} is not ${RUNNABLE_STRATEGY}`,
      );
    }
    if (!progression) {
      problems.push(
        `${policy.address}: progression policy ${policy.progressionPolicyAddress} has no positive step`,
      );
    }
    if (!cadence || (cadence.cadenceTicks ?? 0) < 1) {
      problems.push(`${policy.address}: no cadence constraint with positive cadence_ticks`);
    }
    if (policy.actionOrder.length === 0) problems.push(`${policy.address}: action_order is empty`);
    for (const action of policy.actionOrder) {
      if (!policy.executionBindings.some((b) => b.actionContractAddress === action)) {
        problems.push(`${policy.address}: action ${action} has no execution binding`);
      }
    }
    if (problems.length > before || !progression || !cadence) continue;
    for (const participantAddress of policy.participantAddresses) {
      const rules = new ParticipantAdmissionRules({
        model: input.model,
        participantAddress,
        policyProfile: policy.profile,
        offers: input.offers,
        crossingPolicyInstalled: input.crossingPolicyInstalled,
      });
      specs.push({
        policy,
        policyDigest: digest,
        participantAddress,
        progression,
        cadence,
        rules,
        toolActionsEnabled: input.toolActionLimits !== undefined && rules.hasBindings,
      });
    }
  }
  if (problems.length > 0) {
    throw new RuntimeError(
      RuntimeErrorCode.planning_unsupported,
      "the scenario cannot be scheduled",
      problems,
    );
  }
  return specs.sort(
    (a, b) =>
      a.participantAddress.localeCompare(b.participantAddress) ||
      a.policy.address.localeCompare(b.policy.address),
  );
}

function planV2(
  input: PlanInput,
  policy: CompiledAutonomousPolicy,
  progression: SteppedProgression | undefined,
  problems: string[],
): Omit<ScheduleSpec, "policyDigest">[] {
  const before = problems.length;
  const activity = policy.activity;
  const control = input.v2Controls?.get(policy.address);
  if (!activity) problems.push(`${policy.address}: the v2 policy has no compiled activity`);
  if (policy.selectionStrategy !== "weighted")
    problems.push(`${policy.address}: selection strategy ${policy.selectionStrategy} is not weighted`);
  if (progression?.advancementMode !== "stepped")
    problems.push(`${policy.address}: the v2 scheduler runs on a stepped progression policy only`);
  for (const candidate of activity?.candidates ?? []) {
    if (!policy.executionBindings.some((b) => b.actionContractAddress === candidate.actionContractAddress))
      problems.push(`${policy.address}: candidate ${candidate.id} has no execution binding`);
  }
  if (!control) problems.push(`${policy.address}: no stochastic control is resolved`);
  if (problems.length > before || !activity || !progression || !control) return [];
  // The v2 scheduler runs participants serially in participant_refs order (as RAES).
  return policy.participantAddresses.map((participantAddress) => {
    const rules = new ParticipantAdmissionRules({
      model: input.model,
      participantAddress,
      policyProfile: policy.profile,
      offers: input.offers,
      crossingPolicyInstalled: input.crossingPolicyInstalled,
    });
    return {
      policy,
      participantAddress,
      progression,
      v2: {
        activity,
        maxActionAttempts: policy.maxActionAttempts,
        failurePolicy: policy.failurePolicy,
        stream: { ...control, policyAddress: policy.address, participantAddress },
      },
      rules,
      toolActionsEnabled: input.toolActionLimits !== undefined && rules.hasBindings,
    };
  });
}

const indexes = new WeakMap<readonly ScheduleSpec[], Map<string, ScheduleSpec>>();
/** The key of a participant's schedule under a policy in the runtime's maps. */
export function scheduleKey(participantAddress: string, policyAddress: string): string {
  return `${participantAddress}\u0000${policyAddress}`;
}

/**
 * The schedule of a participant under a policy, from an index built once per list of specs: a scan
 * of every spec per due participant made each step grow with the square of the participants.
 */
export function specOf(
  specs: readonly ScheduleSpec[],
  participantAddress: string,
  policyAddress: string,
): ScheduleSpec | undefined {
  let index = indexes.get(specs);
  if (!index) {
    index = new Map(specs.map((s) => [scheduleKey(s.participantAddress, s.policy.address), s]));
    indexes.set(specs, index);
  }
  return index.get(scheduleKey(participantAddress, policyAddress));
}
