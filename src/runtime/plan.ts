import type {
  CompiledAutonomousPolicy,
  CompiledProgressionPolicy,
  CompiledTemporalConstraint,
  RuntimeModel,
} from "../compiler/index.js";
import {
  type ExecutionOfferLookup,
  ParticipantAdmissionRules,
  type ToolActionLimits,
} from "../port/index.js";
import { RuntimeError, RuntimeErrorCode } from "./errors.js";

const RUNNABLE_PROFILE = "participant-autonomous-execution/v1";
const RUNNABLE_STRATEGY = "ordered_cycle";

/** One participant's schedule under one autonomous policy, ready to run. */
export interface ScheduleSpec {
  readonly policy: CompiledAutonomousPolicy;
  readonly participantAddress: string;
  readonly progression: CompiledProgressionPolicy;
  readonly cadence: CompiledTemporalConstraint;
  readonly rules: ParticipantAdmissionRules;
  /** A port is attached only when the runtime claims the composition and the participant has a binding. */
  readonly toolActionsEnabled: boolean;
}

/** Inputs to planning. */
export interface PlanInput {
  readonly model: RuntimeModel;
  readonly offers: ExecutionOfferLookup;
  readonly toolActionLimits: ToolActionLimits | undefined;
  readonly crossingPolicyInstalled: boolean;
}

/** Plans every (policy × participant) schedule, failing closed on anything the v1 scheduler cannot run. */
export function planSchedules(input: PlanInput): ScheduleSpec[] {
  const problems: string[] = [];
  const specs: ScheduleSpec[] = [];
  for (const policy of Object.values(input.model.autonomousPolicies)) {
    const progression = input.model.progressionPolicies[policy.progressionPolicyAddress];
    const cadence =
      policy.cadenceConstraintAddress === undefined
        ? undefined
        : input.model.temporalConstraints[policy.cadenceConstraintAddress];
    const before = problems.length;
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
    if (!progression || progression.stepTicks < 1) {
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
