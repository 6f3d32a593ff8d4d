import type { RuntimeModel } from "../../../src/compiler/index.js";
import { checkManifest, indexExecutionOffers } from "../../../src/manifest/index.js";
import {
  InvocationToolActionPortCore,
  ParticipantAdmissionRules,
  type ToolActionLimits,
  type ToolActionPortIdentity,
  type ToolActionPortOptions,
} from "../../../src/port/index.js";
import { type ControlPlaneStore, MemoryControlPlaneStore } from "../../../src/store/index.js";
import { EXAMPLE, exampleManifest, exampleModel } from "../../helpers/example.js";

/** The identity the manager gives the example participant's first invocation. */
export const FIRST_INVOCATION: ToolActionPortIdentity = Object.freeze({
  invocationActionInstanceId: `${EXAMPLE.policy}:${EXAMPLE.participant}:0`,
  participantAddress: EXAMPLE.participant,
  episodeId: `${EXAMPLE.participant}-autonomous-0`,
  participantImplementationRef: EXAMPLE.implementation,
  executionScopeRef: EXAMPLE.policy,
  executionGeneration: 1,
  observationPoint: "time.clock.scenario-clock@segment=0,tick=1",
});

/** The example claim's limits. */
export const EXAMPLE_LIMITS: ToolActionLimits = {
  maxToolActionsPerInvocation: 16,
  maxConcurrentToolActionsPerInvocation: 4,
};

/** The example model with the participant's policy on another profile. */
export function modelWithPolicyProfile(profile: string): RuntimeModel {
  const model = exampleModel();
  const policies = Object.fromEntries(
    Object.entries(model.autonomousPolicies).map(([k, p]) => [k, { ...p, profile }]),
  );
  return { ...model, autonomousPolicies: policies };
}

/** The example model with the probe action contract declaring a shared-time binding. */
export function modelWithSharedTimeBoundProbe(): RuntimeModel {
  const model = exampleModel();
  const contracts = Object.fromEntries(
    Object.entries(model.actionContracts).map(([k, c]) => [
      k,
      c.address === EXAMPLE.action ? { ...c, sharedTimeBound: true } : c,
    ]),
  );
  return { ...model, actionContracts: contracts };
}

/** The example model with every affordance binding listed twice. */
export function modelWithDuplicateBindings(): RuntimeModel {
  const model = exampleModel();
  return { ...model, affordanceBindings: [...model.affordanceBindings, ...model.affordanceBindings] };
}

/** The static rules for the example participant, built as `planSchedules` builds them. */
export function rulesFor(
  model: RuntimeModel,
  options: { readonly manifest?: Record<string, unknown>; readonly crossingPolicyInstalled?: boolean } = {},
): ParticipantAdmissionRules {
  const check = checkManifest(options.manifest ?? exampleManifest());
  if (!check.manifest) throw new Error("the example manifest must check");
  const policy = Object.values(model.autonomousPolicies)[0];
  if (!policy) throw new Error("the example has an autonomous policy");
  return new ParticipantAdmissionRules({
    model,
    participantAddress: EXAMPLE.participant,
    policyProfile: policy.profile,
    offers: indexExecutionOffers(check.manifest),
    crossingPolicyInstalled: options.crossingPolicyInstalled ?? false,
  });
}

/** The port options the manager derives from the model for the first invocation (all but rules, limits, ledger). */
export function openCoreOptions(
  model: RuntimeModel,
): Pick<ToolActionPortOptions, "identity" | "outcomeEvidence" | "failureClasses" | "now"> {
  const evidence = new Map(
    Object.values(model.observationBoundaries).map((b) => [b.address, new Set(b.outcomeEvidenceRefs)]),
  );
  const classes = new Map(
    Object.values(model.actionContracts).map((c) => [c.address, new Set(c.failureClasses)]),
  );
  return {
    identity: FIRST_INVOCATION,
    outcomeEvidence: (address) => evidence.get(address),
    failureClasses: (address) => classes.get(address),
    now: () => new Date(0).toISOString(),
  };
}

/** Opens the first invocation in a store, as the manager does before it attaches a port. */
export async function openFirstInvocation(store: ControlPlaneStore): Promise<void> {
  const at = new Date(0).toISOString();
  const id = FIRST_INVOCATION;
  await store.openInvocation(
    {
      id: id.invocationActionInstanceId,
      policyAddress: EXAMPLE.policy,
      participantAddress: id.participantAddress,
      actionContractAddress: EXAMPLE.action,
      observationBoundaryAddress: EXAMPLE.boundary,
      episodeId: id.episodeId,
      segment: 0,
      tick: 1,
      ordinal: 0,
      executionScopeRef: id.executionScopeRef,
      executionGeneration: id.executionGeneration,
      observationPoint: id.observationPoint,
      participantImplementationRef: id.participantImplementationRef,
      state: "running",
      startedAt: at,
      createdAt: at,
      updatedAt: at,
    },
    {
      participantAddress: id.participantAddress,
      policyAddress: EXAMPLE.policy,
      lifecycle: "running",
      nextOrdinal: 1,
      attempts: 1,
      cursor: 1,
      segment: 0,
      tick: 1,
      updatedAt: at,
    },
  );
}

/** A real port core over a memory-store ledger, opened as the manager opens it before `admitAction`. */
export async function openCore(
  model: RuntimeModel,
  options: { readonly rules?: ParticipantAdmissionRules; readonly limits?: ToolActionLimits } = {},
): Promise<{ core: InvocationToolActionPortCore; store: MemoryControlPlaneStore }> {
  const store = new MemoryControlPlaneStore();
  await openFirstInvocation(store);
  const core = new InvocationToolActionPortCore({
    ...openCoreOptions(model),
    rules: options.rules ?? rulesFor(model),
    limits: options.limits ?? EXAMPLE_LIMITS,
    ledger: {
      insert: (record) => store.insertToolAction(record),
      update: (record, expected) => store.updateToolAction(record, expected),
    },
  });
  core.open();
  return { core, store };
}

/** The example manifest with other per-invocation limits in its claim. */
export function manifestWithLimits(total: number, concurrent: number): Record<string, unknown> {
  const manifest = exampleManifest();
  manifest.participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation = total;
  manifest.participant_runtime.invocation_tool_actions.max_concurrent_tool_actions_per_invocation =
    concurrent;
  return manifest;
}
