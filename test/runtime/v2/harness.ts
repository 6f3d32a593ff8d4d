import { readFileSync } from "node:fs";
import type { RuntimeModel } from "../../../src/compiler/index.js";
import type { HistoryEvent } from "../../../src/history/index.js";
import {
  type NativeOutcome,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../../src/index.js";
import type { InvocationToolActionPort } from "../../../src/port/index.js";
import type { InvocationSummary } from "../../../src/runtime/index.js";
import type { ControlPlaneStore } from "../../../src/store/index.js";
import { comparable, type TraceLine, V2_MANIFEST } from "./trace.js";

/** A harness whose n-th native call (1-based, across participants and resets) fails when n % failEvery == 0. */
export class EveryKthFails extends ReferenceAutonomousParticipantRuntime {
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" };
  calls = 0;
  constructor(
    readonly failEvery: number,
    readonly failClass: string,
    /** Attempt ids that fail with `backend_error` regardless of the count (for crash comparisons). */
    readonly forced: ReadonlySet<string> = new Set(),
  ) {
    super();
  }
  /** Claims the composition; this harness makes no tool calls. */
  attachInvocationToolActions(_port: InvocationToolActionPort): void {}

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    this.calls += 1;
    const fail = this.failEvery > 0 && this.calls % this.failEvery === 0;
    const outcome: NativeOutcome = this.forced.has(request.actionInstanceId)
      ? { status: "failed", failureClass: "backend_error" }
      : fail
        ? { status: "failed", failureClass: this.failClass }
        : { status: "succeeded" };
    // As RAES's native test runtime (whose failing variant keeps the observation).
    const observations = ["customer portal responded"];
    return this.nativeExecution(request, snapshot, context.episodeId, { ...outcome, observations });
  }
}

/** What a run is driven with: RAES trace-tool arguments. */
export interface TraceRun {
  readonly model: RuntimeModel;
  readonly seed: string;
  readonly namespace?: string;
  readonly controlId?: string;
  readonly steps: number;
  readonly failEvery: number;
  readonly failClass?: string;
  readonly resetAt?: readonly number[];
  readonly store?: ControlPlaneStore | string;
  readonly manifest?: unknown;
}

/** The v2 example manifest JSON. */
export function v2Manifest(): Record<string, unknown> {
  return JSON.parse(readFileSync(V2_MANIFEST, "utf8")) as Record<string, unknown>;
}

/** Trace lines of a RuntimeManager run, rebuilt from its invocation summaries and committed history. */
export async function traceOfRun(run: TraceRun): Promise<TraceLine[]> {
  const runtime = new EveryKthFails(run.failEvery, run.failClass ?? "target_unavailable");
  const closed: { step: number; summary: InvocationSummary }[] = [];
  let step = 0;
  const manager = await RuntimeManager.open({
    model: run.model,
    manifest: run.manifest ?? v2Manifest(),
    runtime,
    ...(run.store === undefined ? {} : { store: run.store }),
    stochasticControls: [
      {
        controlId: run.controlId ?? "green-activity-policy",
        namespace: run.namespace ?? "green-activity",
        publicSeed: run.seed,
      },
    ],
    observer: { invocationClosed: (summary) => closed.push({ step, summary }) },
  });
  try {
    for (step = 1; step <= run.steps; step += 1) {
      await manager.step(1);
      if (run.resetAt?.includes(step)) await manager.reset();
    }
    return linesOf(closed, await manager.history());
  } finally {
    await manager.close();
  }
}

/** Joins each closed invocation with its committed outer observation into a trace line. */
export function linesOf(
  closed: readonly { step: number; summary: InvocationSummary }[],
  events: readonly HistoryEvent[],
): TraceLine[] {
  const observed = new Map<string, HistoryEvent>();
  for (const e of events) if (e.event_type === "observation_emitted") observed.set(e.action_instance_id, e);
  return closed.map(({ step, summary }) => {
    const event = observed.get(summary.invocationId);
    const p = event?.activity_provenance;
    const after = summary.scheduler.activity;
    if (!event || !p || !after)
      throw new Error(`no v2 provenance or continuation for ${summary.invocationId}`);
    return {
      step,
      tick: p.timing_tick,
      segment: p.random_address.time_segment,
      action_instance_id: summary.invocationId,
      candidate_id: p.candidate_id,
      action_contract_address: event.action_contract_address,
      timing_disposition: p.timing_disposition,
      burst_position: p.burst_position,
      predecessor_attempt_id: p.predecessor_attempt_id,
      result: {
        status: event.action_result?.status ?? "unknown",
        failure_class: event.action_result?.failure_class ?? null,
      },
      after: {
        lifecycle_state: after.lifecycle_state,
        next_tick: after.next_tick,
        occurrence_ordinal: after.occurrence_ordinal,
        current_retry: after.current_retry,
        burst_size: after.burst_size,
        burst_position: after.burst_position,
        next_timing_disposition: after.next_timing_disposition,
        attempted_actions: after.attempted_actions,
        succeeded_actions: after.succeeded_actions,
        failed_actions: after.failed_actions,
        completed_candidate_ids: after.completed_candidate_ids,
        candidate_cooldown_until: after.candidate_cooldown_until,
      },
    };
  });
}

/** Compares two traces line by line (comparable fields), returning the first difference. */
export function firstDifference(
  got: readonly TraceLine[],
  expected: readonly TraceLine[],
): string | undefined {
  for (let i = 0; i < Math.max(got.length, expected.length); i += 1) {
    const g = got[i];
    const e = expected[i];
    if (!g || !e) return `line ${i + 1}: ${g ? "extra" : "missing"} line`;
    const a = JSON.stringify(comparable(g));
    const b = JSON.stringify(comparable(e));
    if (a !== b) return `line ${i + 1}:\n  got      ${a}\n  expected ${b}`;
  }
  return undefined;
}
