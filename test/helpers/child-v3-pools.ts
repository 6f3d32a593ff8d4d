/**
 * v3 shared-pool child: one `RuntimeManager` process on the store named on argv, running the
 * two-participant images run-limit example (both participants under one policy, drawing on the same
 * declared pools) with its default owner id (host, pid, boot), so a survivor can prove it dead after a
 * SIGKILL. The parent drives it one step at a time and decides when each native call returns, so the
 * interleaving of two such processes is the parent's choice, not the scheduler's:
 *
 * - announces `READY` once open;
 * - `step` runs one advance, then announces `STEPPED <json>` (owned participants, native calls so far);
 * - each native call, once its whole vector is reserved (the hold is committed), announces
 *   `CALL <action id>` and waits for `return` before it measures and returns;
 * - `close` closes the manager and exits 0.
 *
 * argv: STORE_URL
 */
import { createInterface } from "node:readline";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../src/index.js";
import { failed, say } from "../crash/child-protocol.js";
import { MeasuringRuntime, twoParticipantModel, v3Manifest } from "../runtime/v3/harness.js";

const [url = ""] = process.argv.slice(2);

/** Lines from the parent: commands, and the `return` a held native call waits for. */
const pending: string[] = [];
const waiters: ((line: string) => void)[] = [];
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const waiter = waiters.shift();
  if (waiter) waiter(line.trim());
  else pending.push(line.trim());
});
lines.on("close", () => process.exit(4));
function next(): Promise<string> {
  const line = pending.shift();
  if (line !== undefined) return Promise.resolve(line);
  return new Promise((resolve) => waiters.push(resolve));
}

/** Announces each reserved native call and returns only when the parent says so. */
class ParentPacedRuntime extends MeasuringRuntime {
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    say(`CALL ${request.actionInstanceId}`);
    const line = await next();
    if (line !== "return") throw new Error(`expected 'return', got '${line}'`);
    return super.modelAction(request, snapshot, context);
  }
}

try {
  const runtime = new ParentPacedRuntime(1_000_000);
  const manager = await RuntimeManager.open({
    model: twoParticipantModel(),
    manifest: v3Manifest(),
    runtime,
    store: url,
    log: () => undefined,
    stochasticControls: [
      { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
    ],
  });
  say("READY");
  for (;;) {
    const command = await next();
    if (command === "step") {
      await manager.step(1);
      const owned = manager.schedulers().map((r) => r.participantAddress);
      say(`STEPPED ${JSON.stringify({ owned, calls: runtime.seen })}`);
    } else if (command === "close") {
      await manager.close();
      say("CLOSED");
      process.exit(0);
    } else throw new Error(`unknown command '${command}'`);
  }
} catch (error) {
  failed(error);
}
