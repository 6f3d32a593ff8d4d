import { spawn } from "node:child_process";
import { join } from "node:path";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { EXAMPLE_MANIFEST, EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";

/** What a `raes` process printed and how it ended. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `raes ARGS` in a real process: the current build, or the source when a build is stale (`cliNodeArgs`). */
export function raes(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliNodeArgs(args), {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The probe harness every CLI run test drives the shared v1 example with. */
export const PROBE_HARNESS = join(ROOT, "test", "fixtures", "runtimes", "probe-harness.ts");

/** `raes run` of the shared v1 example with the probe harness on `store`, then `extra`. */
export function exampleRunArgs(store: string, ...extra: string[]): string[] {
  return [
    "run",
    EXAMPLE_SCENARIO,
    "--manifest",
    EXAMPLE_MANIFEST,
    "--runtime",
    PROBE_HARNESS,
    "--store",
    store,
    ...extra,
  ];
}
