/**
 * Lease test child: opens a runtime on the example scenario against STORE_URL, as `raes run` does,
 * and prints `OWNED <n> <ownerId>`: how many schedulers it took, and the owner id it ran under.
 *
 * argv: STORE_URL
 */
import { newOwnerId, RuntimeManager } from "../../src/runtime/index.js";
import ProbeHarness from "../fixtures/runtimes/probe-harness.js";
import { exampleManifest, exampleModel } from "./example.js";

const [url = ""] = process.argv.slice(2);
const ownerId = newOwnerId();
const manager = await RuntimeManager.open({
  model: exampleModel(),
  manifest: exampleManifest(),
  runtime: new ProbeHarness(),
  store: url,
  ownerId,
});
process.stdout.write(`OWNED ${manager.schedulers().length} ${ownerId}\n`);
await manager.close();
