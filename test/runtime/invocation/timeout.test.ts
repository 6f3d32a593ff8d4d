import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ModelActionContext,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import { EXAMPLE } from "../../helpers/example.js";
import { liveModel, manifestWithTimeout, SECOND_PARTICIPANT } from "../../helpers/live-model.js";
import { PortedRuntime } from "../../helpers/ported-runtime.js";
import { oneToolCall, requestFor } from "../../helpers/tool-requests.js";

const TIMEOUT_SECONDS = 1;
// The bound: the step completes within timeout_seconds + 1 s.
const STEP_BOUND_MS = (TIMEOUT_SECONDS + 1) * 1000;

type SlowMode = "hang" | "ignore-signal";

interface SlowRecord {
  readonly invocationId: string;
  abortReason?: string;
  /** What the port answered inside the abort handler. */
  answerOnAbort?: string;
  /** What the port answered when the harness went on after the signal. */
  answerAfterIgnoring?: string;
}

/**
 * The example participant's first invocation admits two tool calls, dispatches one, then hangs
 * forever or ignores its signal for `ignoreMs`; the second participant always makes one tool call
 * and succeeds.
 */
class SlowHarness extends PortedRuntime {
  readonly slow: SlowRecord[] = [];
  readonly fastResults: string[] = [];
  constructor(
    private readonly mode: SlowMode,
    private readonly options: { readonly dispatch: boolean; readonly ignoreMs?: number },
  ) {
    super();
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId, signal }: ModelActionContext,
  ): Promise<ParticipantActionResult> {
    const port = this.takePort(request);
    if (!port) throw new Error("no port attached");
    const first = request.participantAddress === EXAMPLE.participant && this.slow.length === 0;
    if (!first) {
      this.fastResults.push(await oneToolCall(port, `fast-${request.actionInstanceId}`));
      return this.nativeExecution(request, snapshot, episodeId, { status: "succeeded" });
    }
    const record: SlowRecord = { invocationId: request.actionInstanceId };
    this.slow.push(record);
    signal.addEventListener("abort", () => {
      record.abortReason = (signal.reason as Error).name;
      void port.admit(requestFor(port, "in-abort-handler")).then((d) => {
        record.answerOnAbort = d.admitted ? "admitted" : d.refusal;
      });
    });
    if (this.options.dispatch) {
      const dispatched = await port.admit(requestFor(port, "dispatched"));
      if (!dispatched.admitted) throw new Error(dispatched.refusal);
      await port.dispatch(dispatched.actionInstanceId);
    }
    const undispatched = await port.admit(requestFor(port, "admitted-only"));
    if (!undispatched.admitted) throw new Error(undispatched.refusal);
    if (this.mode === "hang") await new Promise<never>(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, this.options.ignoreMs ?? 0));
    const late = await port.admit(requestFor(port, "after-ignoring"));
    record.answerAfterIgnoring = late.admitted ? "admitted" : late.refusal;
    return this.nativeExecution(request, snapshot, episodeId, { status: "succeeded" });
  }
}

async function timedStep(manager: RuntimeManager): Promise<number> {
  const started = performance.now();
  await manager.step(1);
  return performance.now() - started;
}

describe("an outer invocation is bounded by its covering offer's timeout_seconds", () => {
  for (const [mode, what] of [
    ["hang", "hangs forever"],
    ["ignore-signal", "ignores its signal"],
  ] as const) {
    it(`a harness that ${what}: the step ends within timeout + 1 s; dispatched → indeterminate, undispatched → withheld, the attempt failed/timeout; the other participant is unaffected`, async () => {
      const runtime = new SlowHarness(mode, { dispatch: true, ignoreMs: 2500 });
      const manager = await RuntimeManager.open({
        model: liveModel({ second: true }),
        manifest: manifestWithTimeout(TIMEOUT_SECONDS),
        runtime,
        log: () => undefined,
      });
      const elapsed = await timedStep(manager);
      assert.ok(elapsed < STEP_BOUND_MS, `step took ${elapsed.toFixed(0)} ms`);

      const [slow] = runtime.slow;
      assert.ok(slow);
      assert.equal(slow.abortReason, "TimeoutError", "the harness's AbortSignal fired");
      assert.equal(slow.answerOnAbort, "invocation_closed", "the port closed before the signal fired");
      const outer = await manager.getOperation(slow.invocationId);
      assert.equal(outer?.state, "failed");
      const tools = await manager.store.listToolActions({ invocationId: slow.invocationId });
      assert.deepEqual(
        tools.map((t) => [t.toolCallId, t.settlement]),
        [
          ["dispatched", "indeterminate"],
          ["admitted-only", "withheld"],
        ],
      );
      const events = await manager.history({ participant: EXAMPLE.participant });
      const outcome = events.find(
        (e) => e.event_type === "observation_emitted" && e.action_instance_id === slow.invocationId,
      );
      assert.deepEqual(
        [outcome?.action_result?.status, outcome?.action_result?.failure_class],
        ["failed", "timeout"],
      );
      const stopped = manager.schedulers().find((s) => s.participantAddress === EXAMPLE.participant);
      assert.equal(stopped?.stopReason, "tool_action_indeterminate");

      // The second participant ran in the same step as if nothing happened.
      assert.equal(runtime.fastResults.length, 1);
      const otherId = runtime.fastResults[0]?.replace(/:tool=1$/, "") ?? "";
      assert.ok(otherId.includes(SECOND_PARTICIPANT));
      assert.equal((await manager.getOperation(otherId))?.state, "succeeded");
      assert.equal((await manager.getOperation(runtime.fastResults[0] ?? ""))?.settlement, "succeeded");
      await manager.close();
    });
  }

  it("a harness that ignores its signal: the step ends within timeout + 1 s, later steps run at once, its late result is discarded and said so once", async () => {
    const runtime = new SlowHarness("ignore-signal", { dispatch: false, ignoreMs: 2500 });
    let resolveLate: (notice: [string, string]) => void = () => undefined;
    const lateNotice = new Promise<[string, string]>((resolve) => {
      resolveLate = resolve;
    });
    const notices: [string, string][] = [];
    const logLines: string[] = [];
    const manager = await RuntimeManager.open({
      model: liveModel({ second: true }),
      manifest: manifestWithTimeout(TIMEOUT_SECONDS),
      runtime,
      log: (line) => logLines.push(line),
      observer: {
        lateResultDiscarded: (id, how) => {
          notices.push([id, how]);
          resolveLate([id, how]);
        },
      },
    });
    const first = await timedStep(manager);
    assert.ok(first < STEP_BOUND_MS, `step took ${first.toFixed(0)} ms`);
    const [slow] = runtime.slow;
    assert.ok(slow);
    assert.equal(slow.abortReason, "TimeoutError");
    const tools = await manager.store.listToolActions({ invocationId: slow.invocationId });
    assert.deepEqual(
      tools.map((t) => [t.toolCallId, t.settlement]),
      [["admitted-only", "withheld"]],
    );
    assert.equal((await manager.getOperation(slow.invocationId))?.state, "failed");

    // The ignoring harness is still running: the next step does not wait for it.
    await manager.step(1);
    assert.equal(notices.length, 0, "the next step ran while the ignoring harness still ran");
    assert.equal(runtime.fastResults.length, 3, "both participants ran in step 2, the second in both steps");

    assert.deepEqual(await lateNotice, [slow.invocationId, "returned"]);
    assert.equal(slow.answerAfterIgnoring, "invocation_closed");
    assert.equal(notices.length, 1, "said once");
    assert.deepEqual(
      logLines.filter((line) => line.includes("late")),
      [`${slow.invocationId} timed out earlier; its harness returned late and that result was discarded`],
      "said once in the log",
    );
    const outcomes = (await manager.history()).filter(
      (e) => e.event_type === "observation_emitted" && e.action_instance_id === slow.invocationId,
    );
    assert.deepEqual(
      outcomes.map((e) => [e.action_result?.status, e.action_result?.failure_class]),
      [["failed", "timeout"]],
      "the late result left no trace in history",
    );
    await manager.close();
  });
});
