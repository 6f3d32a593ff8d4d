/**
 * v3 crash-test child: runs the v3 example on the store named on argv and, on the KILL_AT-th native
 * call (1-based), when its whole vector is reserved, announces `POINT <attempt id>` and blocks until the
 * parent kills it with SIGKILL.
 *
 * argv: STORE_URL KILL_AT
 */
import { RuntimeManager } from "../../src/index.js";
import { failed, holdAtPoint, say, unexpectedEnd } from "../crash/child-protocol.js";
import { CRASH_OWNER } from "../crash/kill-points.js";
import { V2_CRASH_CONTROL, V2_CRASH_STEPS } from "../crash/v2-harness.js";
import { DeterministicV3Runtime } from "../crash/v3-harness.js";
import { v3Manifest, v3Model } from "../runtime/v3/harness.js";

const [url = "", killText = "0"] = process.argv.slice(2);
const killAt = Number(killText);
let calls = 0;

try {
  const manager = await RuntimeManager.open({
    model: v3Model(),
    manifest: v3Manifest(),
    runtime: new DeterministicV3Runtime(new Set(), async (request) => {
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
  for (let step = 1; step <= V2_CRASH_STEPS; step += 1) await manager.step(1);
  unexpectedEnd();
} catch (error) {
  failed(error);
}
