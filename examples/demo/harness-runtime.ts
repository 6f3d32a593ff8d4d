/**
 * The demo harness as a `raes run` module, for running the demo's MCP stack under `raes run`
 * from a source checkout:
 *
 *   npx tsx src/cli/main.ts run examples/enterprise-participant-evidence-loop.sdl.yaml \
 *     --manifest examples/harness-backend.manifest.json \
 *     --runtime examples/demo/harness-runtime.ts --steps 2 --store sqlite:.raes/run-demo.db
 *
 * Per invocation the runtime serves the port on a private socket and runs the scripted MCP agent,
 * whose MCP server is `raes mcp-gateway --map examples/demo/mcp-map.yaml` in front of the demo MCP
 * server; the local portal service it probes runs in this process.
 */
import { DEMO_FILES, DemoHarnessRuntime, startPortalService } from "../../src/demo/index.js";

/** Starts the local portal service and returns the demo harness runtime that uses it. */
export default async function createDemoHarnessRuntime(): Promise<DemoHarnessRuntime> {
  const portal = await startPortalService();
  return new DemoHarnessRuntime({ portalUrl: portal.url, mapPath: DEMO_FILES.map, timeoutMs: 3000 });
}
