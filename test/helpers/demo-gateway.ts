import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PortalService } from "../../src/demo/index.js";
import { ChildStdioTransport } from "./child-stdio.js";
import { EXAMPLE_HOST_INPUTS, ROOT } from "./example.js";

const MAIN = join(ROOT, "dist", "cli", "main.js");
const SERVER = join(ROOT, "dist", "demo", "server.js");

/** The demo's MCP map with `yaml` (lines indented under the entry) added to its probe_login entry. */
export function demoMapWith(yaml: string): string {
  const demo = readFileSync(join(ROOT, "examples", "demo", "mcp-map.yaml"), "utf8");
  return demo.replace(/(evidence_refs: \[content\.participant-observation\]\n)/, `$1${yaml}`);
}

/**
 * A host-mode `raes mcp-gateway` (the built CLI) over the demo MCP server on the evidence-loop
 * example, with the map file `map` on `store`; `extra` options go before the upstream command.
 */
export function demoHostGateway(
  map: string,
  store: string,
  portal: PortalService,
  extra: readonly string[] = [],
): ChildStdioTransport {
  return new ChildStdioTransport(
    process.execPath,
    [
      MAIN,
      "mcp-gateway",
      ...EXAMPLE_HOST_INPUTS,
      "--map",
      map,
      "--store",
      store,
      ...extra,
      "--",
      process.execPath,
      SERVER,
    ],
    { PATH: process.env.PATH ?? "", DEMO_PORTAL_URL: portal.url },
    tmpdir(),
    { keepStderr: true },
  );
}
