/**
 * The demo harness as a `raes run` module, for running the demo's MCP stack under `raes run`.
 * From a project where raes-ts is installed (tsx loads this TypeScript file):
 *
 *   E=node_modules/raes-ts/examples
 *   npx raes run $E/enterprise-participant-evidence-loop.sdl.yaml \
 *     --manifest $E/harness-backend.manifest.json \
 *     --runtime $E/demo/harness-runtime.ts --steps 2 --store sqlite:.raes/run-demo.db
 *
 * Per invocation the runtime serves the port on a private socket and runs the scripted MCP agent,
 * whose MCP server is `raes mcp-gateway --map examples/demo/mcp-map.yaml` in front of the demo MCP
 * server; the local portal service it probes runs in this process.
 */
import { DEMO_FILES, DemoHarnessRuntime, startPortalService } from "raes-ts/demo";

/** Starts the local portal service and returns the demo harness runtime that uses it. */
export default async function createDemoHarnessRuntime(): Promise<DemoHarnessRuntime> {
  const portal = await startPortalService();
  return new DemoHarnessRuntime({ portalUrl: portal.url, mapPath: DEMO_FILES.map, timeoutMs: 3000 });
}
