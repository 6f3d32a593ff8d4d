import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Built code runs as .js under plain node; source runs as .ts under tsx, and so must its children.
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const HERE = dirname(fileURLToPath(import.meta.url));

/** The package root (the folder holding `examples/`), from `src/demo` or `dist/demo`. */
export const PACKAGE_ROOT = join(HERE, "..", "..");

/** The command line that runs one of the demo's own entry modules (`agent`, `server`) in a new node process. */
export function demoEntry(name: "agent" | "server"): string[] {
  return nodeCommand(join(HERE, `${name}${FROM_SOURCE ? ".ts" : ".js"}`));
}

/** The command line that runs the `raes` CLI this code belongs to. */
export function raesCommand(): string[] {
  return nodeCommand(join(HERE, "..", "cli", `main${FROM_SOURCE ? ".ts" : ".js"}`));
}

function nodeCommand(file: string): string[] {
  return FROM_SOURCE
    ? [process.execPath, "--import", import.meta.resolve("tsx"), file]
    : [process.execPath, file];
}
