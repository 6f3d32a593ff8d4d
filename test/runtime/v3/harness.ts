import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RuntimeModel } from "../../../src/compiler/index.js";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import type { InvocationSummary, ResourceThrottle } from "../../../src/runtime/index.js";
import type { ControlPlaneStore } from "../../../src/store/index.js";
import { ROOT } from "../../helpers/example.js";
import { EveryKthFails } from "../v2/harness.js";
import { compileFile } from "../v2/trace.js";

/** The v3 example and its manifest (byte-identical copies of the shared ones). */
export const V3_EXAMPLE = join(ROOT, "examples", "enterprise-participant-resource-v3.sdl.yaml");
export const V3_MANIFEST = join(ROOT, "examples", "harness-backend-v3.manifest.json");
/** RAES's run of the example (../shared/conformance/v3). */
export const V3_CONFORMANCE = join(ROOT, "test", "fixtures", "conformance", "v3");
/** Traces recorded with raes_v3_trace.py (test/fixtures/v3-traces/record.sh). */
export const V3_TRACES = join(ROOT, "test", "fixtures", "v3-traces");

/** The v3 example manifest JSON. */
export function v3Manifest(): Record<string, unknown> {
  return JSON.parse(readFileSync(V3_MANIFEST, "utf8")) as Record<string, unknown>;
}

/**
 * RAES's trace-tool native runtime: every K-th native call fails, and each requirement is measured at
 * its reservation unless `measure` names another quantity for its budget.
 */
export class MeasuringRuntime extends EveryKthFails {
  /** Action ids in the order they reached this runtime. */
  readonly seen: string[] = [];
  constructor(
    failEvery: number,
    readonly measure: Readonly<Record<string, number>> = {},
    failClass = "target_unavailable",
  ) {
    super(failEvery, failClass);
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    this.seen.push(request.actionInstanceId);
    const result = await super.modelAction(request, snapshot, context);
    return {
      ...result,
      resourceMeasurements: (request.resourceMeasurementRequirements ?? []).map((r) => ({
        budgetStateRef: r.budgetStateRef,
        operationId: request.actionInstanceId,
        executionGeneration: request.executionGeneration,
        resourceKind: r.resourceKind,
        unit: r.unit,
        meterProfileRef: r.meterProfileRef,
        measured: this.measure[r.budgetId] ?? r.reserved,
        evidenceRefs: [`evidence:${request.actionInstanceId}:${r.budgetId}`],
      })),
    };
  }
}

/** One line of a v3 trace: an attempt or a throttle, with the budgets right after it. */
export interface V3Line {
  readonly kind: "attempt" | "throttle";
  readonly step: number;
  readonly tick: number;
  readonly segment: number;
  readonly action_instance_id: string;
  readonly reservation?: Readonly<Record<string, number>>;
  readonly measurement?: Readonly<Record<string, number>>;
  readonly resource_result: string;
  readonly result: { readonly status: string; readonly failure_class: string | null };
  readonly throttle?: {
    readonly budget_id: string;
    readonly requested: number;
    readonly capacity_kind: string;
  };
  readonly budgets: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly committed?: boolean;
}

/** What a v3 run is driven with: RAES trace-tool arguments. */
export interface V3Run {
  readonly model: RuntimeModel;
  readonly seed: string;
  readonly steps: number;
  readonly failEvery: number;
  readonly measure?: Readonly<Record<string, number>>;
  readonly resetAt?: readonly number[];
  readonly store?: ControlPlaneStore | string;
  /** Another manifest than the example's. */
  readonly manifest?: unknown;
}

/** The v3 example's compiled model. */
export function v3Model(path = V3_EXAMPLE): RuntimeModel {
  return compileFile(path);
}

const BUDGET_FIELDS = [
  "reserved",
  "cumulative_use",
  "current_use",
  "throttled",
  "generation",
  "limit",
] as const;

/** The budgets of a manager in RAES's trace shape (by budget id, RAES's fields only). */
export function budgetsOf(manager: RuntimeManager): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const b of manager.resourceBudgets())
    out[b.budget_id] = Object.fromEntries(BUDGET_FIELDS.map((f) => [f, b[f]]));
  return out;
}

/** Runs a v3 scenario through the public API and rebuilds RAES-shaped trace lines. */
export async function v3TraceOfRun(
  run: V3Run,
): Promise<{ lines: V3Line[]; runtime: MeasuringRuntime; advances: number[] }> {
  const runtime = new MeasuringRuntime(run.failEvery, run.measure ?? {});
  const lines: V3Line[] = [];
  let step = 0;
  let manager: RuntimeManager | undefined;
  const closed = (summary: InvocationSummary) => {
    lines.push({
      kind: "attempt",
      step,
      tick: summary.scheduler.tick,
      segment: summary.scheduler.segment,
      action_instance_id: summary.invocationId,
      reservation: summary.resources?.reservation ?? {},
      measurement: summary.resources?.measurement ?? {},
      resource_result: summary.resources?.result ?? "none",
      result: { status: summary.outerStatus ?? "unknown", failure_class: null },
      budgets: manager ? budgetsOf(manager) : {},
    });
  };
  const throttled = (t: ResourceThrottle) =>
    lines.push({
      kind: "throttle",
      step,
      tick: t.tick,
      segment: -1,
      action_instance_id: t.operationId,
      resource_result: "throttled",
      result: { status: "throttled", failure_class: null },
      throttle: { budget_id: t.budgetId, requested: t.requested, capacity_kind: t.capacityKind },
      budgets: manager ? budgetsOf(manager) : {},
    });
  manager = await RuntimeManager.open({
    model: run.model,
    manifest: run.manifest ?? v3Manifest(),
    runtime,
    ...(run.store === undefined ? {} : { store: run.store }),
    stochasticControls: [
      { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: run.seed },
    ],
    observer: { invocationClosed: closed, resourceThrottled: throttled },
  });
  const advances: number[] = [];
  try {
    for (step = 1; step <= run.steps; step += 1) {
      const summary = await manager.step(1);
      advances.push(summary.steps);
      if (run.resetAt?.includes(step)) await manager.reset();
    }
    const events = await manager.history();
    const failure = new Map<string, string | null>();
    for (const e of events)
      if (e.event_type === "observation_emitted")
        failure.set(e.action_instance_id, e.action_result?.failure_class ?? null);
    return {
      lines: lines.map((l) =>
        l.kind === "attempt"
          ? { ...l, result: { ...l.result, failure_class: failure.get(l.action_instance_id) ?? null } }
          : l,
      ),
      runtime,
      advances,
    };
  } finally {
    await manager.close();
  }
}

const AGENT = "participant.behavior.participant-agent";
/** The second participant `twoParticipantModel` adds. */
export const SECOND_AGENT = `${AGENT}-second`;

/**
 * The images run-limit example (images: limit 5, one per action) with a second participant under the
 * same policy: both draw on the policy's budgets and on the same pools (concurrent actions: capacity 1).
 */
export function twoParticipantModel(): RuntimeModel {
  const model = v3Model(join(V3_TRACES, "images-run-limit.sdl.yaml"));
  const original = model.participants[AGENT];
  if (!original) throw new Error("the example has no participant-agent");
  const policies = Object.fromEntries(
    Object.entries(model.autonomousPolicies).map(([k, p]) => [
      k,
      { ...p, participantAddresses: [AGENT, SECOND_AGENT] },
    ]),
  );
  const bindings = model.affordanceBindings.filter((b) => b.participantAddress === AGENT);
  return {
    ...model,
    participants: { ...model.participants, [SECOND_AGENT]: { ...original, address: SECOND_AGENT } },
    autonomousPolicies: policies,
    affordanceBindings: [
      ...model.affordanceBindings,
      ...bindings.map((b) => ({ ...b, participantAddress: SECOND_AGENT })),
    ],
  };
}

/** The lines of a recorded v3 trace. */
export function readV3Trace(path: string): V3Line[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as V3Line);
}

/** The fields a reproduction is compared on: tick, action id, result, reservation, measurement and budgets. */
export function v3Comparable(line: V3Line): unknown {
  return {
    kind: line.kind,
    step: line.step,
    tick: line.tick,
    action_instance_id: line.action_instance_id,
    result: line.kind === "attempt" ? line.result : "throttled",
    resource_result: line.resource_result,
    ...(line.kind === "attempt" ? { reservation: line.reservation, measurement: line.measurement } : {}),
    ...(line.throttle
      ? {
          throttle: {
            budget_id: line.throttle.budget_id,
            requested: line.throttle.requested,
            capacity_kind: line.throttle.capacity_kind,
          },
        }
      : {}),
    budgets: line.budgets,
  };
}

/** The first difference of two v3 traces, compared on `v3Comparable`. */
export function firstV3Difference(got: readonly V3Line[], expected: readonly V3Line[]): string | undefined {
  for (let i = 0; i < Math.max(got.length, expected.length); i += 1) {
    const g = got[i];
    const e = expected[i];
    if (!g || !e) return `line ${i + 1}: ${g ? "extra" : "missing"} line`;
    const a = JSON.stringify(v3Comparable(g));
    const b = JSON.stringify(v3Comparable(e));
    if (a !== b) return `line ${i + 1}:\n  got      ${a}\n  expected ${b}`;
  }
  return undefined;
}
