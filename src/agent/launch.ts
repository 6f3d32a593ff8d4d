import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Built code runs as .js under plain node; source runs as .ts under tsx, and so must the gateway.
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const HERE = dirname(fileURLToPath(import.meta.url));

/** The command line that runs the `raes` CLI this code belongs to (for the agent's gateway servers). */
export function raesCommand(): string[] {
  const main = join(HERE, "..", "cli", `main${FROM_SOURCE ? ".ts" : ".js"}`);
  return FROM_SOURCE
    ? [process.execPath, "--import", import.meta.resolve("tsx"), main]
    : [process.execPath, main];
}
