/**
 * v2 crash-test child: runs the v2 example on the store named on argv and, on the KILL_AT-th native
 * call (1-based), announces `POINT <attempt id>` and blocks until the parent kills it with SIGKILL.
 * KILL_AT 0 kills between steps instead, after STEP_KILL steps (nothing is interrupted then).
 *
 * argv: STORE_URL KILL_AT STEP_KILL
 */
import { RuntimeManager } from "../../src/index.js";
import { failed, holdAtPoint, say, unexpectedEnd } from "../crash/child-protocol.js";
import { CRASH_OWNER } from "../crash/kill-points.js";
import { DeterministicV2Runtime, V2_CRASH_CONTROL, V2_CRASH_STEPS } from "../crash/v2-harness.js";
import { v2Manifest } from "../runtime/v2/harness.js";
import { compileFile, V2_EXAMPLE } from "../runtime/v2/trace.js";

const [url = "", killText = "0", stepText = "0"] = process.argv.slice(2);
const killAt = Number(killText);
let calls = 0;

try {
  const manager = await RuntimeManager.open({
    model: compileFile(V2_EXAMPLE),
    manifest: v2Manifest(),
    runtime: new DeterministicV2Runtime(new Set(), async (request) => {
      calls += 1;
      if (calls === killAt) {
        await holdAtPoint(request.actionInstanceId);
      }
    }),
    store: url,
    ownerId: CRASH_OWNER,
    stochasticControls: [V2_CRASH_CONTROL],
  });
  say("ARMED");
  for (let step = 1; step <= V2_CRASH_STEPS; step += 1) {
    await manager.step(1);
    if (killAt === 0 && step === Number(stepText)) {
      await holdAtPoint("between-steps");
    }
  }
  unexpectedEnd();
} catch (error) {
  failed(error);
}
