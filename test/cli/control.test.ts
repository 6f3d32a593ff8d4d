import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { getParticipantStatusView, RuntimeManager } from "../../src/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { liveScenario } from "../fixtures/live/scenario.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { EXAMPLE, EXAMPLE_MANIFEST, exampleModel, modelWithAttempts, ROOT } from "../helpers/example.js";
import { HeldRuntime } from "../operations/held-runtime.js";
import { RaesNativeRuntime } from "../runtime/raes-runtime-fixtures.js";
import { freshSchema, postgresAvailable } from "../store/pg-available.js";
import { PROBE_HARNESS, raes } from "./cli.js";

const P = EXAMPLE.participant;
const ACTIONS = ["start", "pause", "resume", "drain", "reset", "teardown"];

/** The example manifest with RAES's execution-control capabilities declared. */
function controlledManifest(dir: string): string {
  const manifest = JSON.parse(readFileSync(EXAMPLE_MANIFEST, "utf8"));
  manifest.participant_runtime.supports_execution_control = true;
  manifest.participant_runtime.supported_execution_control_actions = ACTIONS;
  const path = join(dir, "manifest.json");
  writeFileSync(path, JSON.stringify(manifest));
  return path;
}

/** A `raes run` in real time with no end of its own; the probe harness prints INVOKING per invocation. */
function startRun(
  dir: string,
  store: string,
): { child: ChildProcess; invoked: () => number; exited: Promise<number> } {
  const child = spawn(
    process.execPath,
    cliNodeArgs([
      "run",
      liveScenario(dir, 100_000),
      "--manifest",
      controlledManifest(dir),
      "--runtime",
      PROBE_HARNESS,
      "--store",
      store,
      "--tick-ms",
      "20",
    ]),
    { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, RAES_TEST_SLOW_MS: "1" } },
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? -1)));
  return { child, invoked: () => (stderr.match(/INVOKING /g) ?? []).length, exited };
}

/** A manager over the example with execution control, on a SQLite store in a new folder. */
async function controlledManager(): Promise<{ store: string; manager: RuntimeManager }> {
  const dir = mkdtempSync(join(tmpdir(), "raes-control-"));
  const store = `sqlite:${join(dir, "cp.db")}`;
  const manager = await RuntimeManager.open({
    model: exampleModel(),
    manifest: JSON.parse(readFileSync(controlledManifest(dir), "utf8")),
    runtime: new RaesNativeRuntime(),
    store,
  });
  return { store, manager };
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 3000; i += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The shared clock's tick as the store holds it, read through a separate connection. */
async function clockTick(store: string): Promise<number> {
  const reader = await openControlPlaneStore(store, { create: false });
  try {
    return (await reader.getClock("time.clock.scenario-clock"))?.tick ?? -1;
  } finally {
    await reader.close();
  }
}

async function pausesAndResumes(store: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "raes-control-"));
  const run = startRun(dir, store);
  try {
    await until(() => run.invoked() >= 2, "two invocations");
    const paused = await raes(["control", "pause", P, "--store", store, "--operator", "alice", "--json"]);
    assert.equal(paused.code, 0, paused.stderr);
    const answer = JSON.parse(paused.stdout);
    assert.equal(answer.ok, true);
    assert.equal(answer.service.observed_lifecycle, "paused");
    // A step that had already read the service may finish its invocation; nothing starts after it.
    const atPause = run.invoked();
    const tick = await clockTick(store);
    await until(async () => (await clockTick(store)) >= tick + 50, "five more steps of the clock");
    assert.ok(run.invoked() <= atPause + 1, `paused, yet ${run.invoked() - atPause} invocations ran`);
    const stale = await raes(["control", "resume", P, "--store", store, "--expected-generation", "7"]);
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /runtime\.participant-execution-stale-generation/);
    const frozen = run.invoked();
    const resumed = await raes(["control", "resume", P, "--store", store, "--operator", "bob", "--json"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(JSON.parse(resumed.stdout).service.observed_lifecycle, "running");
    await until(() => run.invoked() >= frozen + 2, "invocations after the resume");
  } finally {
    run.child.kill("SIGINT");
    await run.exited;
  }
  const reader = await openControlPlaneStore(store, { create: false });
  try {
    const decisions = await reader.readDecisionPage(0, 10);
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.subject, d.operator]),
      [
        ["execution_pause", P, "alice"],
        ["execution_resume", P, "bob"],
      ],
      "the refused (stale) resume left no decision",
    );
  } finally {
    await reader.close();
  }
}

describe("raes control from another process", () => {
  it("pauses a running raes run on SQLite at its next advance, and resume resumes it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-control-"));
    await pausesAndResumes(`sqlite:${join(dir, "cp.db")}`);
  });

  it("pauses a running raes run on PostgreSQL at its next advance, and resume resumes it", async (t) => {
    if (!(await postgresAvailable("raes control on PostgreSQL"))) return t.skip("PostgreSQL unavailable");
    const { url, drop } = freshSchema("raes_control");
    try {
      await pausesAndResumes(url);
    } finally {
      await drop();
    }
  });

  it("refuses a control under a manifest without supports_execution_control, writing nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-control-"));
    const store = `sqlite:${join(dir, "cp.db")}`;
    const run = await raes([
      "run",
      liveScenario(dir),
      "--manifest",
      EXAMPLE_MANIFEST,
      "--runtime",
      PROBE_HARNESS,
      "--store",
      store,
      "--steps",
      "1",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const refused = await raes(["control", "pause", P, "--store", store]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^raes: runtime\.participant-execution-control-unsupported: /);
    const unknown = await raes(["control", "pause", "participant.behavior.nobody", "--store", store]);
    assert.match(unknown.stderr, /runtime\.participant-execution-not-found/);
    const reader = await openControlPlaneStore(store, { create: false });
    try {
      assert.equal((await reader.getDecisionHead()).decisions, 0);
    } finally {
      await reader.close();
    }
  });

  it("prints the service's health as the status view reads it: degraded once pacing was lost", async () => {
    const { store, manager } = await controlledManager();
    await manager.close();
    const writer = await openControlPlaneStore(store, { create: false });
    const ref = `evidence:${EXAMPLE.policy}:pacing-loss:time.clock.scenario-clock:generation-1`;
    try {
      await writer.recordPacingDeviation({
        participantAddress: P,
        policyAddress: EXAMPLE.policy,
        clockAddress: "time.clock.scenario-clock",
        generation: 1,
        ref,
        latenessMs: 420,
        boundMs: 100,
        recordedAt: "2026-01-01T00:00:00.000Z",
      });
    } finally {
      await writer.close();
    }
    const paused = await raes(["control", "pause", P, "--store", store, "--operator", "alice"]);
    assert.equal(paused.code, 0, paused.stderr);
    assert.match(
      paused.stdout,
      new RegExp(`^${P.replaceAll(".", "\\.")}: paused, degraded \\(generation 1, `),
    );
    const resumed = await raes(["control", "resume", P, "--store", store, "--json"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const answer = JSON.parse(resumed.stdout);
    const reader = await openControlPlaneStore(store, { create: false });
    try {
      const view = await getParticipantStatusView({ store: reader, model: exampleModel() }, P);
      const [service] = view?.execution_services ?? [];
      assert.equal(service?.health, "degraded");
      assert.deepEqual(answer.service, service, "the control's answer is the status view's readback");
      assert.deepEqual(answer.service.pacing_deviation_refs, [ref]);
    } finally {
      await reader.close();
    }
    // A refusal shows the same health.
    const stale = await raes(["control", "pause", P, "--store", store, "--expected-generation", "9"]);
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /is running, degraded, at generation 1/);
  });

  it("a paced raes run over a torn-down participant ends by itself, saying nothing is left to run because of the teardown", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-control-"));
    const store = `sqlite:${join(dir, "cp.db")}`;
    const manifest = controlledManifest(dir);
    const scenario = liveScenario(dir, 100_000);
    const args = ["run", scenario, "--manifest", manifest, "--runtime", PROBE_HARNESS, "--store", store];
    const first = await raes([...args, "--steps", "1"]);
    assert.equal(first.code, 0, first.stderr);
    for (const action of ["drain", "teardown"]) {
      const control = await raes(["control", action, P, "--store", store, "--operator", "alice"]);
      assert.equal(control.code, 0, control.stderr);
    }
    const child = spawn(process.execPath, cliNodeArgs([...args, "--tick-ms", "20"]), {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    let code: number | null | undefined;
    child.on("close", (c) => (code = c));
    try {
      await until(() => code !== undefined, "the run to end by itself");
    } finally {
      if (code === undefined) child.kill("SIGINT");
    }
    assert.match(stdout, /nothing left to run: .*torn down .*raes control teardown/, stderr);
  });

  it("a drain refused on invocations left open by a gone runtime prints what to do, with commands that run as printed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-control-"));
    const store = `sqlite:${join(dir, "cp.db")}`;
    const runtime = new HeldRuntime();
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(1000),
      manifest: JSON.parse(readFileSync(controlledManifest(dir), "utf8")),
      runtime,
      store,
    });
    runtime.holding = true;
    const step = manager.step(1);
    await runtime.called;
    const lease = await manager.store.getLease(P);
    assert.ok(lease);
    await manager.store.releaseLease(lease); // its runtime is gone, as far as the store can tell
    try {
      const drain = await raes(["control", "drain", P, "--timeout", "1", "--store", store]);
      assert.equal(drain.code, 1);
      assert.match(drain.stderr, /left by a runtime that is gone .*start raes run on this store again/);
      const printed = (label: string) => {
        const line = new RegExp(`^  ${label}: (.*)$`, "m").exec(drain.stderr)?.[1];
        assert.ok(line, drain.stderr);
        const words = line.split(" ");
        return words.slice(words.findIndex((w) => w === "operations" || w === "control"));
      };
      const listed = await raes(printed("see them").map((w) => w.replace(/^'(.*)'$/, "$1")));
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`^${P.replaceAll(".", "\\.")}: service running`));
      assert.deepEqual(printed("once a raes run on this store has recovered them").slice(0, 3), [
        "control",
        "drain",
        P,
      ]);
    } finally {
      runtime.release();
      await step.catch(() => undefined);
      await manager.close().catch(() => undefined);
    }
  });

  it("raes operations --participant shows the participant's execution service as the status view reads it, in text and JSON", async () => {
    const { store, manager } = await controlledManager();
    await manager.pauseParticipant(P, { operator: "alice" });
    await manager.close();
    const text = await raes(["operations", "--participant", P, "--store", store]);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(
      text.stdout.split("\n")[0],
      `${P}: service paused, healthy (generation 1, not accepting work)`,
    );
    const json = await raes(["operations", "--participant", P, "--store", store, "--json"]);
    assert.equal(json.code, 0, json.stderr);
    const answer = JSON.parse(json.stdout);
    assert.ok(Array.isArray(answer.operations));
    const reader = await openControlPlaneStore(store, { create: false });
    try {
      const view = await getParticipantStatusView({ store: reader, model: exampleModel() }, P);
      assert.deepEqual(answer.execution_services, view?.execution_services);
      assert.equal(answer.execution_services[0].observed_lifecycle, "paused");
    } finally {
      await reader.close();
    }
    // Without --participant the listing is as before: no service line, no execution_services.
    const all = await raes(["operations", "--store", store, "--json"]);
    assert.equal(JSON.parse(all.stdout).execution_services, undefined);
    // A participant with no service in the store: the key is there, empty, in both JSON listings.
    for (const extra of [[], ["--needs-operator"]]) {
      const none = await raes(["operations", "--participant", "nope", "--store", store, "--json", ...extra]);
      assert.equal(none.code, 0, none.stderr);
      assert.deepEqual(JSON.parse(none.stdout), { operations: [], execution_services: [] }, extra.join(" "));
    }
  });
});
