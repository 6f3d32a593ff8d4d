import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type InvocationToolActionPort,
  type ParticipantActionRequest,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../src/index.js";
import { rethrowInvocationErrors } from "../helpers/callback-failures.js";
import { exampleManifest, modelStartingAt, ROOT } from "../helpers/example.js";
import { outcomeFor, requestFor } from "../helpers/tool-requests.js";

const GOLDEN = join(ROOT, "test", "fixtures", "golden", "history-v1.jsonl");

/** Settles one action of every kind, in admission order a..e, then returns a partial success. */
class EverySettlement extends ReferenceAutonomousParticipantRuntime {
  port: InvocationToolActionPort | undefined;
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.port = port;
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    ctx: { episodeId: string },
  ) {
    const port = this.port as InvocationToolActionPort;
    const ids: string[] = [];
    const admit = async (call: string) => {
      const decision = await port.admit(requestFor(port, call));
      assert.ok(decision.admitted, `admit ${call}`);
      ids.push(decision.actionInstanceId);
    };
    for (const call of ["a", "b", "c", "d"]) await admit(call);
    const [a, b, c, d] = ids as [string, string, string, string];
    const outcome = (id: string, status: "succeeded" | "failed" | "partial_success") =>
      outcomeFor(port, id, {
        status,
        ...(status === "failed" ? { failureClass: "target_unavailable" } : {}),
        ...(status === "partial_success" ? { evidenceRefs: ["content.participant-observation"] } : {}),
      });
    for (const id of [a, b, c, d]) await port.dispatch(id);
    await port.complete(a, outcome(a, "succeeded"));
    await port.complete(b, outcome(b, "failed"));
    await port.complete(c, outcome(c, "partial_success"));
    await port.reportUnknown(d, "timeout");
    await admit("e");
    await port.cancel(ids[4] as string);
    return this.nativeExecution(request, snapshot, ctx.episodeId, { status: "partial_success" });
  }
}

async function runGoldenScenario(): Promise<string> {
  // A fixed wall clock: the golden file pins the format, not how often the runtime reads the time.
  const fixed = Date.UTC(2026, 0, 1);
  const manager = await RuntimeManager.open({
    model: modelStartingAt(10, 5),
    manifest: exampleManifest(),
    runtime: new EverySettlement(),
    now: () => fixed,
  });
  // The manager turns a throw in modelAction (a failed assert) into a failed invocation: rethrow it.
  rethrowInvocationErrors((await manager.step(1)).invocations);
  const lines = (await manager.history()).map((e) => JSON.stringify(e));
  await manager.close();
  return `${lines.join("\n")}\n`;
}

describe("golden history (format pinned across versions)", () => {
  it("the history of one invocation with every settlement matches test/fixtures/golden/history-v1.jsonl", async () => {
    const actual = await runGoldenScenario();
    if (process.env.UPDATE_GOLDEN === "1") writeFileSync(GOLDEN, actual);
    assert.equal(actual, readFileSync(GOLDEN, "utf8"));
  });
});
