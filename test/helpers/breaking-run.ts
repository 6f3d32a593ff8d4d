import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { generatedManifest, generateScenario } from "../../bench/shared/index.js";
import { compileScenario, loadScenario } from "../../src/index.js";
import { freshSchema, POSTGRES_TEST_URL } from "../store/pg-available.js";
import { cliNodeArgs } from "./cli-entry.js";
import { ROOT } from "./example.js";

const HARNESS = join(ROOT, "test", "fixtures", "runtimes", "store-breaking-harness.ts");

/** How a `raes run` ended: its exit code (`hung` when it outlived the bound and was killed) and stderr. */
export interface BrokenRun {
  readonly code: number | null | "hung";
  readonly stderr: string;
}

/**
 * Runs `raes run` on two generated participants in `dir` with the store-breaking harness, which renames
 * `schema`'s `invocations` table in the 7th invocation so a step fails at its close. `storeUrl` is the
 * run's `--store` (the schema's URL, or one through a proxy to it). Waits at most `hangMs`, a generous
 * bound rather than a timing: a run still going then is killed and reported `hung`.
 */
export async function runWithBreakingStore(
  dir: string,
  storeUrl: string,
  schema: string,
  hangMs: number,
): Promise<BrokenRun> {
  const scenarioPath = join(dir, "two.yaml");
  writeFileSync(scenarioPath, generateScenario(2));
  const { scenario } = loadScenario(scenarioPath);
  if (!scenario) throw new Error("the generated scenario did not load");
  const manifestPath = join(dir, "two.manifest.json");
  writeFileSync(manifestPath, JSON.stringify(generatedManifest(compileScenario(scenario))));
  const args = ["run", scenarioPath, "--manifest", manifestPath, "--runtime", HARNESS, "--store", storeUrl];
  const child = spawn(
    process.execPath,
    cliNodeArgs([...args, "--tick-ms", "100", "--lease-ttl-ms", "60000"]),
    {
      cwd: ROOT,
      env: {
        ...process.env,
        RAES_BREAK_URL: POSTGRES_TEST_URL,
        RAES_BREAK_SCHEMA: schema,
        // After the open's own invocations and a few steps: the failure is a step's.
        RAES_BREAK_AT: "7",
        RAES_SCALE_SLEEP_MS: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdout.resume();
  const code = await new Promise<number | null | "hung">((resolve) => {
    const hung = setTimeout(() => resolve("hung"), hangMs);
    child.on("close", (c) => {
      clearTimeout(hung);
      resolve(c);
    });
  });
  if (code === "hung") child.kill("SIGKILL");
  return { code, stderr };
}

/**
 * Where a suite's breaking runs go: a scratch folder and a fresh schema named for `name`, both
 * removed after the suite. Call it inside the suite's `describe`.
 */
export function breakingRunPlace(name: string): { dir: string; schema: string; url: string } {
  const dir = mkdtempSync(join(tmpdir(), `raes-${name.replaceAll("_", "-")}-`));
  const { schema, url, drop } = freshSchema(`raes_${name}`);
  after(async () => {
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, schema, url };
}
