import assert from "node:assert/strict";
import { join } from "node:path";
import type { HistoryEvent } from "../../src/history/index.js";
import { RuntimeManager } from "../../src/index.js";
import { continuationView } from "../../src/runtime/index.js";
import { ROOT } from "../helpers/example.js";
import { v2Manifest } from "../runtime/v2/harness.js";
import { compileFile, V2_EXAMPLE } from "../runtime/v2/trace.js";
import { CRASH_OWNER } from "./kill-points.js";
import { sigkillAtAnnouncedPoint } from "./kill-run.js";
import { DeterministicV2Runtime, V2_CRASH_CONTROL, V2_CRASH_STEPS } from "./v2-harness.js";

const CHILD = join(ROOT, "test", "helpers", "child-crash-v2.ts");
const CLOCK = "time.clock.scenario-clock";
const STEP_TICKS = 10;

/** A v2 crash round: SIGKILL at the `killAt`-th native call, or between steps after `stepKill` steps. */
export interface V2Kill {
  readonly url: string;
  readonly killAt: number;
  readonly stepKill: number;
}

/** The kills of `rounds` rounds, spread over native calls 1..35 (the uninterrupted run makes at least 35) and over step boundaries. */
export function plannedV2Kills(rounds: number): { killAt: number; stepKill: number }[] {
  return Array.from({ length: rounds }, (_, r) =>
    r % 5 === 4 ? { killAt: 0, stepKill: 1 + ((r * 13) % 55) } : { killAt: 1 + ((r * 17) % 35), stepKill: 0 },
  );
}

interface Outcome {
  readonly attempts: string[];
  readonly continuation: unknown;
}

/** Each attempt as the trace compares it: id, candidate, disposition, burst, predecessor, result. */
function attemptsOf(events: readonly HistoryEvent[]): string[] {
  return events
    .filter((e) => e.event_type === "observation_emitted" && e.invocation_tool_context === undefined)
    .map((e) => {
      const p = e.activity_provenance;
      return JSON.stringify([
        e.action_instance_id,
        p?.candidate_id,
        p?.timing_disposition,
        p?.timing_tick,
        p?.burst_position,
        p?.predecessor_attempt_id,
        e.action_result?.status,
        e.action_result?.failure_class,
      ]);
    });
}

async function finish(manager: RuntimeManager): Promise<Outcome> {
  try {
    const clock = await manager.store.getClock(CLOCK);
    const remaining = V2_CRASH_STEPS - (clock?.tick ?? 0) / STEP_TICKS;
    if (remaining > 0) await manager.step(remaining);
    const [scheduler] = manager.schedulers();
    assert.ok(scheduler?.activity, "the v2 scheduler has a continuation");
    return {
      attempts: attemptsOf(await manager.history()),
      continuation: continuationView(scheduler.activity),
    };
  } finally {
    await manager.close();
  }
}

/** The uninterrupted run, with the consumed attempt (if any) failing non-retryably instead. */
async function reference(consumed: string | undefined): Promise<Outcome> {
  return finish(
    await RuntimeManager.open({
      model: compileFile(V2_EXAMPLE),
      manifest: v2Manifest(),
      runtime: new DeterministicV2Runtime(new Set(consumed ? [consumed] : [])),
      stochasticControls: [V2_CRASH_CONTROL],
    }),
  );
}

/** Kills the child, reopens the store, runs to the end and compares with the uninterrupted trace. */
export async function killAndResumeV2(kill: V2Kill): Promise<void> {
  const { point } = await sigkillAtAnnouncedPoint(CHILD, [
    kill.url,
    String(kill.killAt),
    String(kill.stepKill),
  ]);
  const consumed = point === "POINT between-steps" ? undefined : point.slice("POINT ".length);

  const logs: string[] = [];
  const resumed = await finish(
    await RuntimeManager.open({
      model: compileFile(V2_EXAMPLE),
      manifest: v2Manifest(),
      runtime: new DeterministicV2Runtime(),
      store: kill.url,
      ownerId: CRASH_OWNER,
      stochasticControls: [V2_CRASH_CONTROL],
      log: (line) => logs.push(line),
    }),
  );
  // The reopen tells the operator how many attempts the crash consumed, and which.
  const recoveryLines = logs.filter((l) => l.startsWith("recovered an interrupted run"));
  if (consumed === undefined) assert.deepEqual(recoveryLines, []);
  else
    assert.deepEqual(recoveryLines, [
      `recovered an interrupted run: 1 attempt was consumed by the crash or lost commit (never retried): ${consumed}`,
    ]);
  const expected = await reference(consumed);
  const consumedLine = expected.attempts.find(
    (a) => consumed !== undefined && a.startsWith(`["${consumed}"`),
  );
  if (consumed !== undefined)
    assert.ok(consumedLine, `the reference run makes the consumed attempt ${consumed}`);
  assert.deepEqual(
    resumed.attempts,
    expected.attempts.filter((a) => a !== consumedLine),
    "the resumed trace is the uninterrupted one minus the consumed attempt",
  );
  assert.deepEqual(resumed.continuation, expected.continuation);
}
