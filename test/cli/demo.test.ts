import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { DEMO_STORE_DEFAULT } from "../../src/cli/commands/demo.js";
import { DEMO_STORE_URL, type DemoSummary } from "../../src/demo/index.js";
import type { ControlPlaneStore } from "../../src/store/index.js";
import { isCi } from "../helpers/ci.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { ROOT } from "../helpers/example.js";

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function raes(cwd: string, args: readonly string[]): Promise<Outcome> {
  return node(cwd, ["--import", "tsx", join(cwd, "src", "cli", "main.ts"), ...args]);
}

function node(cwd: string, args: readonly string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const POLICY = "participant.autonomous-execution.participant-behavior";
const PARTICIPANT = "participant.behavior.participant-agent";

function tally(values: readonly (string | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v ?? "none"] = (out[v ?? "none"] ?? 0) + 1;
  return out;
}

describe("raes demo in a fresh clone", () => {
  let clone: string;
  let first: Outcome;
  let summary: DemoSummary & { html: string; elapsed_ms: number; resolve: string[] };
  let store: ControlPlaneStore;
  // The clone's own store code reads the store: this working tree may already know a newer schema.
  let openStore: () => Promise<ControlPlaneStore>;

  before(async () => {
    clone = mkdtempSync(join(tmpdir(), "raes-demo-clone-"));
    execFileSync("git", ["clone", "-q", ROOT, clone]);
    // Stands in for `npm ci`: the same installed packages, without the network.
    symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"), "dir");
    const storeModule = pathToFileURL(join(clone, "src", "store", "index.ts")).href;
    const { openControlPlaneStore } = (await import(
      storeModule
    )) as typeof import("../../src/store/index.js");
    openStore = () => openControlPlaneStore(`sqlite:${join(clone, ".raes", "demo.db")}`);
    first = await raes(clone, ["demo", "--json"]);
    summary = JSON.parse(first.stdout);
  });

  after(async () => {
    await store?.close();
    rmSync(clone, { recursive: true, force: true });
  });

  it("ends on the indeterminate call with exit 1, on the default demo store", () => {
    assert.equal(first.code, 1, first.stderr);
    assert.equal(summary.store, "sqlite:.raes/demo.db");
    assert.ok(existsSync(join(clone, ".raes", "demo.db")));
    assert.deepEqual(summary.stopped, [{ participant: PARTICIPANT, reason: "tool_action_indeterminate" }]);
  });

  it("reports figures that match the store it wrote", async () => {
    store = await openStore();
    const invocations = [];
    for (let n = 0; n < 10; n += 1) {
      const operation = await store.getOperation(`${POLICY}:${PARTICIPANT}:${n}`);
      if (operation) invocations.push(operation);
    }
    assert.equal(summary.invocations, invocations.length);
    assert.deepEqual(summary.invocation_states, tally(invocations.map((o) => o.state)));
    const actions = await store.listToolActions({});
    assert.deepEqual(summary.tool_actions, tally(actions.map((a) => a.settlement)));
    const indeterminate = actions.filter((a) => a.settlement === "indeterminate").map((a) => a.id);
    assert.deepEqual(summary.indeterminate, indeterminate);
    for (const id of indeterminate) assert.equal((await store.getOperation(id))?.state, "indeterminate");
    assert.deepEqual(
      // Each starts the way the CLI was invoked (node /abs/dist/cli/main.js here); the rest is fixed.
      summary.resolve.map((c) => c.slice(c.indexOf(" resolve ") + 1)),
      indeterminate.flatMap((id) =>
        ["confirmed", "absent"].map(
          (effect) => `resolve ${id} --effect ${effect} --store sqlite:.raes/demo.db`,
        ),
      ),
    );
    const schedulers = await store.listSchedulers();
    assert.deepEqual(
      summary.stopped,
      schedulers
        .filter((s) => s.lifecycle === "stopped")
        .map((s) => ({ participant: s.participantAddress, reason: s.stopReason ?? null })),
    );
    const events = await store.listEvents({});
    const outerTriples = invocations.filter((o) => o.state === "succeeded").length;
    assert.equal(events.length, 3 * (actions.length + outerTriples));
  });

  it("shows the expected story: successful probes, one port refusal, one hidden tool, one timeout", () => {
    assert.deepEqual(summary.tool_actions, { succeeded: 3, indeterminate: 1 });
    assert.deepEqual(summary.refusals, { target_outside_binding: 1 });
    assert.deepEqual(summary.gateway_refusals, { tool_not_mapped: 1 });
    assert.deepEqual(summary.agent_tools, ["probe_login", "query_customer_db"]);
    assert.equal(summary.agent_failures, 0);
    // Only admitted, dispatched calls reached the portal: the refused and hidden tools never did.
    assert.deepEqual(summary.portal_requests, { "/login": 3, "/login-stalled": 1 });
  });

  it("writes the HTML timeline with one mark per tool action", () => {
    assert.equal(summary.html, join(clone, ".raes", "demo.html"));
    const html = readFileSync(summary.html, "utf8");
    const total = Object.values(summary.tool_actions).reduce((a, b) => a + b, 0);
    assert.match(html, new RegExp(`data-invocations="${summary.invocations}" data-tool-actions="${total}"`));
    // Its resolve commands name the demo's store, by absolute path, so they run as printed from anywhere.
    const store = `--store sqlite:${join(clone, ".raes", "demo.db")}`;
    const commands = [...html.matchAll(/data-effect="(?:confirmed|absent)">([^<]+)<\/code>/g)].map(
      (m) => m[1],
    );
    assert.ok(commands.length > 0);
    for (const command of commands) assert.ok(command?.endsWith(store), command);
  });

  it("prints a resolve command that works", async () => {
    const command = summary.resolve.find((c) => c.includes("--effect absent")) ?? "";
    await store.close();
    // Pasted into a POSIX shell exactly as printed.
    const outcome = spawnSync("/bin/sh", ["-c", command], { cwd: clone, encoding: "utf8" });
    assert.equal(outcome.status, 0, outcome.stderr);
    store = await openStore();
    const operation = await store.getOperation(summary.indeterminate[0] as string);
    assert.equal(operation?.resolution?.resolution, "effect_absent");
  });

  it("starts from a fresh store on every run, so a second run gives the same figures", async () => {
    await store.close();
    // The build this run made, in the clone: the fresh clone's source already ran once above.
    const again = await node(clone, cliNodeArgs(["demo", "--json"]));
    assert.equal(again.code, 1, again.stderr);
    const second = JSON.parse(again.stdout) as typeof summary;
    assert.equal(second.removed_previous_store, true);
    const figures = ({
      invocations,
      tool_actions,
      refusals,
      gateway_refusals,
      portal_requests,
      indeterminate,
    }: typeof summary) => ({
      invocations,
      tool_actions,
      refusals,
      gateway_refusals,
      portal_requests,
      indeterminate,
    });
    assert.deepEqual(figures(second), figures(summary));
    store = await openStore();
    assert.equal((await store.getOperation(summary.indeterminate[0] as string))?.resolution, undefined);
  });
});

describe("raes demo command line", () => {
  it("documents the demo and its exit codes in --help, and exits 2 on usage errors", async () => {
    const help = await raes(ROOT, ["demo", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--store <url>/);
    // The help names the demo's store without loading the demo module.
    assert.equal(DEMO_STORE_DEFAULT, DEMO_STORE_URL);
    assert.ok(help.stdout.includes(`(default: "${DEMO_STORE_URL}")`), help.stdout);
    assert.match(help.stdout, /--html <file>/);
    assert.match(help.stdout, /--json/);
    assert.match(
      help.stdout,
      /1 {2}a scheduler stopped on an indeterminate tool action: the demo's expected ending/,
    );
    const usage = await raes(ROOT, ["demo", "--no-such-option"]);
    assert.equal(usage.code, 2);
    assert.equal(usage.stdout, "");
    // Every command the demo prints names its store: one that ends with the demo is refused.
    const memory = await raes(ROOT, ["demo", "--store", "memory:"]);
    assert.equal(memory.code, 2, memory.stderr);
    assert.equal(memory.stdout, "");
    assert.match(
      memory.stderr,
      /^raes: cli\.usage: .*a memory: store ends with the demo: name a sqlite: or postgres:\/\/ store/m,
    );
  });

  const DIST_MAIN = join(ROOT, "dist", "cli", "main.js");
  it("runs from the built dist/ with plain node, as the `raes` bin does", {
    skip: !existsSync(DIST_MAIN) && !isCi() && "no dist/ build",
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-demo-dist-"));
    try {
      const url = `sqlite:${join(dir, "demo.db")}`;
      const outcome = await node(dir, [
        DIST_MAIN,
        "demo",
        "--json",
        "--store",
        url,
        "--html",
        join(dir, "t.html"),
      ]);
      assert.equal(outcome.code, 1, outcome.stderr);
      const summary = JSON.parse(outcome.stdout) as DemoSummary;
      assert.equal(summary.store, url);
      assert.equal(summary.removed_previous_store, false);
      assert.deepEqual(summary.tool_actions, { succeeded: 3, indeterminate: 1 });
      assert.deepEqual(summary.portal_requests, { "/login": 3, "/login-stalled": 1 });
      assert.ok(existsSync(join(dir, "t.html")));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
