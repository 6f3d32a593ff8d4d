import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { generatedManifest, generateScenario } from "../../bench/shared/index.js";
import { compileScenario, loadScenario } from "../../src/index.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { ROOT } from "../helpers/example.js";
import { adminQuery, freshSchema, POSTGRES_TEST_URL, postgresAvailable } from "../store/pg-available.js";

const available = await postgresAvailable("raes run whose store fails");
const HARNESS = join(ROOT, "test", "fixtures", "runtimes", "store-breaking-harness.ts");

describe("raes run whose step fails on its PostgreSQL store", {
  skip: available ? false : "POSTGRES UNAVAILABLE",
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-run-failure-"));
  const { schema, url, drop } = freshSchema("raes_run_failure");
  after(async () => {
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reports the error, gives its participants back and exits (no keep-alive holds them after it)", async () => {
    const scenarioPath = join(dir, "two.yaml");
    writeFileSync(scenarioPath, generateScenario(2));
    const { scenario } = loadScenario(scenarioPath);
    assert.ok(scenario);
    const manifestPath = join(dir, "two.manifest.json");
    writeFileSync(manifestPath, JSON.stringify(generatedManifest(compileScenario(scenario))));
    const args = ["run", scenarioPath, "--manifest", manifestPath, "--runtime", HARNESS, "--store", url];
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
    // A generous bound, not a timing: before the fix the process never exited.
    const code = await new Promise<number | null | "hung">((resolve) => {
      const hung = setTimeout(() => resolve("hung"), 60_000);
      child.on("close", (c) => {
        clearTimeout(hung);
        resolve(c);
      });
    });
    if (code === "hung") child.kill("SIGKILL");
    assert.notEqual(code, "hung", `raes run did not exit after its store failed:\n${stderr}`);
    assert.notEqual(code, 0);
    assert.match(stderr, /ledger_unavailable|invocations/);
    const held = await adminQuery(
      `SELECT participant_address FROM ${schema}.leases WHERE owner_id IS NOT NULL`,
    );
    assert.deepEqual(held, [], "its leases are given back, so another process takes them at once");
    assert.deepEqual(await adminQuery(`SELECT owner_id FROM ${schema}.runtime_processes`), [], "it left");
  });
});
