import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openControlPlaneStore } from "../../src/index.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";
import { raesStringFields } from "../helpers/raes-fields.js";
import { exampleRunArgs, raes } from "./cli.js";

const HARNESS = join(ROOT, "test", "fixtures", "runtimes", "probe-harness.ts");
const P = "participant.behavior.participant-agent";
const storeUrl = () => `sqlite:${join(mkdtempSync(join(tmpdir(), "raes-run-")), "cp.db")}`;
const runArgs = (store: string, steps = 5) => exampleRunArgs(store, "--steps", String(steps));

describe("raes run / history / operation / resolve / resume", () => {
  it("runs the example on SQLite and reports invocations and tool actions (--json)", async () => {
    const store = storeUrl();
    const run = await raes([...runArgs(store), "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.invocations, 2, "the example policy allows two attempts");
    assert.deepEqual(summary.tool_actions, { succeeded: 2 });
    assert.deepEqual(summary.stopped, []);
    const history = await raes(["history", "--store", store, "--json"]);
    assert.equal(history.code, 0);
    const { events } = JSON.parse(history.stdout);
    assert.equal(events.length, 12);
    assert.deepEqual(
      events.map((e: { sequence: number }) => e.sequence),
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    for (const e of events as Record<string, unknown>[]) {
      for (const field of raesStringFields(String(e.event_type)))
        assert.equal(typeof e[field], "string", `${e.event_id} ${field}`);
    }
    const filtered = await raes([
      "history",
      "--store",
      store,
      "--json",
      "--participant",
      "participant.behavior.nobody",
    ]);
    assert.deepEqual(JSON.parse(filtered.stdout), { events: [], schedulers: [] });
  });

  it("--concurrency bounds a step's invocations and leaves the run's outcome as it was", async () => {
    const run = await raes([...runArgs(storeUrl()), "--concurrency", "1", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.invocations, 2);
    assert.deepEqual(summary.tool_actions, { succeeded: 2 });
  });

  it("accepts a module whose default export is a factory, and refuses one that exports neither", async () => {
    const store = storeUrl();
    const factory = join(ROOT, "test", "fixtures", "runtimes", "probe-factory.ts");
    const args = runArgs(store).map((a) => (a === HARNESS ? factory : a));
    const run = await raes([...args, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).invocations, 2);
    const bad = await raes(
      runArgs(store).map((a) => (a === HARNESS ? join(ROOT, "test", "cli", "cli.ts") : a)),
    );
    assert.equal(bad.code, 2, "the file the command line names is wrong: a usage error");
    assert.match(
      bad.stderr,
      /^raes: cli\.runtime-module-invalid: .*: the default export must be a runtime class or a factory function \(the module has no default export\)$/m,
    );
    assert.doesNotMatch(bad.stderr, /cli\.uncoded-error/);
  });

  it("a --runtime module whose factory builds no object is refused with its code (exit 2), and nothing is written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-run-"));
    const module = join(dir, "number.mjs");
    writeFileSync(module, "export default () => 3;\n");
    const db = join(dir, "nested", "cp.db");
    const run = await raes(
      exampleRunArgs(`sqlite:${db}`).map((a) => (a.endsWith("probe-harness.ts") ? module : a)),
    );
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      /^raes: cli\.runtime-module-invalid: .*number\.mjs: the default export did not produce a runtime object$/m,
    );
    assert.equal(existsSync(join(dir, "nested")), false, "the store's folder was not made");
  });

  it("a --runtime module that cannot be imported, whose factory throws or builds no runtime, is refused with its code (exit 2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-run-"));
    const broken = join(dir, "broken.mjs");
    writeFileSync(broken, "export default class {\n");
    const missing = join(dir, "missing-dep.mjs");
    writeFileSync(missing, 'import "no-such-package-raes-test";\nexport default class {}\n');
    const throws = join(dir, "throws.mjs");
    writeFileSync(throws, 'export default () => { throw new Error("factory boom"); };\n');
    const empty = join(dir, "empty-object.mjs");
    writeFileSync(empty, "export default () => ({});\n");
    for (const [module, why] of [
      [broken, /broken\.mjs could not be imported: .*(Unexpected|SyntaxError|end of input)/],
      [missing, /missing-dep\.mjs could not be imported: .*no-such-package-raes-test/],
      [throws, /throws\.mjs: building the runtime threw: factory boom$/m],
      [empty, /empty-object\.mjs: the runtime it built has no admitAction method$/m],
    ] as const) {
      const db = join(dir, "nested", "cp.db");
      const run = await raes(
        exampleRunArgs(`sqlite:${db}`).map((a) => (a.endsWith("probe-harness.ts") ? module : a)),
      );
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /^raes: cli\.runtime-module-invalid: /m);
      assert.match(run.stderr, why);
      assert.equal(existsSync(join(dir, "nested")), false, "the store's folder was not made");
    }
  });

  it("a harness that throws: the error is printed and the run exits 1 (text and --json)", async () => {
    const run = await raes(runArgs(storeUrl()), { env: { RAES_TEST_MODE: "throw" } });
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      /^raes: cli\.invocation-failed: \S+:0 failed: DB password wrong for svc-portal$/m,
    );
    const json = await raes([...runArgs(storeUrl()), "--json"], { env: { RAES_TEST_MODE: "throw" } });
    assert.equal(json.code, 1, json.stderr);
    const summary = JSON.parse(json.stdout);
    assert.deepEqual(summary.errors, [
      {
        invocation: `participant.autonomous-execution.participant-behavior:${P}:0`,
        error: "Error: DB password wrong for svc-portal",
      },
    ]);
  });

  it("a failed native outcome is no runtime error, but its failure_policy stop exits 1 with its next step", async () => {
    const store = storeUrl();
    const run = await raes([...runArgs(store), "--json"], { env: { RAES_TEST_MODE: "failed" } });
    assert.equal(run.code, 1, run.stderr);
    assert.doesNotMatch(run.stderr, /failed:/);
    const summary = JSON.parse(run.stdout);
    assert.deepEqual(summary.errors, []);
    assert.deepEqual(summary.stopped, [{ participant: P, reason: "failure_policy" }]);
    assert.equal(summary.next.length, 1);
    assert.equal(summary.next[0].participant, P);
    assert.match(
      summary.next[0].commands[0],
      new RegExp(` operations --participant ${P} --state failed --store `),
    );
    assert.match(summary.next[0].commands[1], new RegExp(` resume ${P} --store `));
    const text = await raes(runArgs(storeUrl()), { env: { RAES_TEST_MODE: "failed" } });
    assert.equal(text.code, 1, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(
        `^stopped: ${P} \\(failure_policy\\)\n  next: see what failed, fix it, then resume:\n    \\S.* operations --participant`,
        "m",
      ),
    );
    // The printed resume runs: the scheduler is running again.
    const resumed = await raes(["resume", P, "--store", store]);
    assert.equal(resumed.code, 0, resumed.stderr);
  });

  it("stops on an indeterminate action: exit 1 naming raes resolve; resolve then resume", async () => {
    const store = storeUrl();
    const run = await raes(runArgs(store), { env: { RAES_TEST_MODE: "unknown" } });
    assert.equal(run.code, 1, run.stderr);
    const id = `participant.autonomous-execution.participant-behavior:${P}:0:tool=1`;
    assert.match(run.stdout, new RegExp(` resolve ${id.replace(/[.]/g, "\\.")} --effect confirmed --store`));
    const op = await raes(["operation", id, "--store", store, "--json"]);
    assert.deepEqual(
      (({ id, parent_id, kind, state, settlement, resolution }) => ({
        id,
        parent_id,
        kind,
        state,
        settlement,
        resolution,
      }))(JSON.parse(op.stdout)),
      {
        id,
        parent_id: `participant.autonomous-execution.participant-behavior:${P}:0`,
        kind: "tool_action",
        state: "indeterminate",
        settlement: "indeterminate",
        resolution: null,
      },
    );
    const early = await raes(["resume", P, "--store", store, "--json"]);
    assert.equal(early.code, 1);
    assert.deepEqual(JSON.parse(early.stdout).unresolved, [id]);
    const resolved = await raes([
      "resolve",
      id,
      "--effect",
      "absent",
      "--note",
      "portal logs show no request",
      "--store",
      store,
      "--json",
    ]);
    assert.equal(resolved.code, 0, resolved.stderr);
    assert.equal(JSON.parse(resolved.stdout).resolution.resolution, "effect_absent");
    const again = await raes(["resolve", id, "--effect", "confirmed", "--store", store]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /resolution\.already-resolved/);
    const resumed = await raes(["resume", P, "--store", store]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const second = await raes([...runArgs(store), "--json"]);
    assert.equal(JSON.parse(second.stdout).invocations, 1, "one attempt was left");
    const s = await openControlPlaneStore(store);
    const effects = (await s.listToolActions({ participantAddress: P })).map((a) => a.id);
    await s.close();
    assert.equal(new Set(effects).size, effects.length, "no tool action was repeated");
  });

  it("usage errors exit 2 and every command has --help", async () => {
    assert.equal((await raes(["resolve", "x", "--effect", "maybe"])).code, 2);
    assert.equal((await raes(["run", EXAMPLE_SCENARIO])).code, 2);
    assert.equal((await raes(["no-such-command"])).code, 2);
    for (const command of [
      "validate",
      "compile",
      "manifest",
      "run",
      "history",
      "operation",
      "resolve",
      "resume",
      "mcp-gateway",
    ]) {
      const help = await raes([command, "--help"]);
      assert.equal(help.code, 0, command);
      assert.match(help.stdout, /Usage: raes/, command);
    }
  });

  it("an unknown operation exits 1", async () => {
    const store = storeUrl();
    // An existing, empty control plane: a missing one is "no store" (exit 2), tested in read-commands.
    await (await openControlPlaneStore(store)).close();
    const missing = await raes(["operation", "nope", "--store", store, "--json"]);
    assert.equal(missing.code, 1);
    assert.equal(JSON.parse(missing.stdout).error, "operation.not-found");
    const empty = await raes(["operation", "", "--store", store]);
    assert.equal(empty.code, 1);
    assert.match(
      empty.stderr,
      /^raes: operation\.not-found: no operation "",/m,
      "an empty id is shown quoted",
    );
  });

  it("a --runtime module that is not there is a usage error (exit 2) before anything opens", async () => {
    const store = storeUrl();
    const args = exampleRunArgs(store).map((arg) =>
      arg.endsWith("probe-harness.ts") ? "./missing.mjs" : arg,
    );
    const run = await raes(args);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--runtime \.\/missing\.mjs: no such file/);
    assert.doesNotMatch(run.stderr, /Cannot find module/);
  });

  it("SIGINT mid-invocation: the open invocation closes by the seed's rules and everything commits", async () => {
    const store = storeUrl();
    const child = spawn(process.execPath, cliNodeArgs([...runArgs(store, 50), "--json"]), {
      cwd: ROOT,
      env: { ...process.env, RAES_TEST_SLOW_MS: "1500" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const signalled = new Promise<void>((resolve) =>
      child.stderr.on("data", (d) => {
        stderr += d;
        if (stderr.includes("INVOKING") && !child.killed) {
          child.kill("SIGINT");
          resolve();
        }
      }),
    );
    await signalled;
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).invocations, 1, "it stopped after the open invocation");
    const s = await openControlPlaneStore(store);
    assert.deepEqual(await s.listOpenInvocations(), []);
    assert.equal((await s.listEvents()).length, 6);
    await s.close();
  });
});
