import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { LOGIN_PATH, type PortalService, startPortalService } from "../../src/demo/index.js";
import { listOperatorWaits } from "../../src/operations/index.js";
import { type ControlPlaneStore, openControlPlaneStore } from "../../src/store/index.js";
import { filesBelow, placesHolding, sqliteCells, storeReads, text } from "../helpers/canary-scan.js";
import { demoHostGateway, demoMapWith } from "../helpers/demo-gateway.js";
import { ROOT } from "../helpers/example.js";
import { freshSchema, postgresAvailable } from "../store/pg-available.js";

const run = promisify(execFile);
const MAIN = join(ROOT, "dist", "cli", "main.js");

/** The demo map with `approval` (YAML under the probe_login entry) added. */
function mapWith(approval: string): string {
  return demoMapWith(`    approval: ${approval}\n`);
}

function letters(n: number): string {
  return Array.from({ length: n }, () => String.fromCharCode(97 + randomInt(26))).join("");
}

/** `raes ARGS --store URL`, never throwing: exit code and output. */
async function raes(store: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN, ...args, "--store", store]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A host-mode gateway over the demo server, with an MCP client connected to it. */
async function gateway(dir: string, store: string, map: string, portal: PortalService, extra: string[] = []) {
  const file = join(dir, `map-${letters(6)}.yaml`);
  writeFileSync(file, map);
  const transport = demoHostGateway(file, store, portal, extra);
  const client = new Client({ name: "approvals-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** The id of the one call held for approval, once the gateway has written it (read from the store). */
async function pendingApproval(store: ControlPlaneStore): Promise<string> {
  // Bounded, so a gateway that never holds the call fails the test instead of hanging it.
  for (let round = 0; round < 1200; round += 1) {
    const waits = await listOperatorWaits(store, { limit: 10 });
    const held = waits.find((w) => w.need === "pending_approval");
    if (held) return held.entry.id;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("no call was held for approval");
}

const meta = (result: CallToolResult, key: string) => result._meta?.[key];

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`approvals in host mode (demo upstream, ${kind} store)`, () => {
    let dir = "";
    let portal: PortalService;
    let url = "";
    let store: ControlPlaneStore | undefined;
    let skip = false;
    const drops: (() => Promise<void>)[] = [];
    before(async () => {
      portal = await startPortalService();
      if (kind === "postgres") skip = !(await postgresAvailable("approvals e2e"));
    });
    // A fresh store per case: the example's participant has few attempts, one per gateway session.
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), "raes-approvals-"));
      if (skip) return;
      if (kind === "postgres") {
        const schema = freshSchema("raes_approvals");
        url = schema.url;
        drops.push(schema.drop);
      } else url = `sqlite:${join(dir, "control-plane.db")}`;
      store = await openControlPlaneStore(url);
    });
    afterEach(async () => {
      await store?.close();
      store = undefined;
      rmSync(dir, { recursive: true, force: true });
    });
    after(async () => {
      await portal.close();
      for (const drop of drops) await drop();
    });

    it("keeps a session whose call waits for approval longer than --idle-timeout: approved after it, the call runs once", async (t) => {
      if (skip || !store) return t.skip("PostgreSQL unavailable");
      const before = portal.requests()[LOGIN_PATH] ?? 0;
      const { client, transport } = await gateway(dir, url, mapWith("required"), portal, [
        "--idle-timeout",
        "1",
      ]);
      const answer = client.callTool({ name: "probe_login", arguments: { path: LOGIN_PATH } }, undefined, {
        timeout: 60_000,
      });
      const id = await pendingApproval(store);
      // Three idle timeouts pass while the call is held: a waiting call keeps its session.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      assert.equal((await raes(url, "approve", id)).code, 0);
      const result = (await answer) as CallToolResult;
      // The session is still the agent's: it was never idle while its call waited.
      const listed = await client.listTools();
      assert.ok(listed.tools.some((tool) => tool.name === "probe_login"));
      await client.close();
      assert.equal(await transport.exited, 0, transport.stderr);
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal((portal.requests()[LOGIN_PATH] ?? 0) - before, 1, "the tool ran exactly once");
      assert.equal((await store.getToolAction(id))?.settlement, "succeeded");
    });

    it("runs an approved call exactly once, though two operators approve it at once; the agent gets progress while it waits", async (t) => {
      if (skip || !store) return t.skip("PostgreSQL unavailable");
      const before = portal.requests()[LOGIN_PATH] ?? 0;
      const { client, transport } = await gateway(dir, url, mapWith("required"), portal);
      const progress: string[] = [];
      const answer = client.callTool({ name: "probe_login", arguments: { path: LOGIN_PATH } }, undefined, {
        onprogress: (p) => progress.push(p.message ?? ""),
        timeout: 60_000,
      });
      const id = await pendingApproval(store);
      assert.equal((await store.getToolAction(id))?.dispatchedAt, undefined, "held undispatched");
      // Two processes approve the same call at once: one decides, the other is told it already was.
      const both = await Promise.all([
        raes(url, "approve", id, "--operator", "alice", "--note", "in scope"),
        raes(url, "approve", id, "--operator", "bob"),
      ]);
      assert.deepEqual(
        both.map((b) => b.code),
        [0, 0],
      );
      const said = both.map((b) => b.stdout.trim()).sort();
      assert.deepEqual(said, [
        `already approved ${id}; nothing changed`,
        `approved ${id}: its runtime dispatches it now, and the tool runs once`,
      ]);
      const result = (await answer) as CallToolResult;
      await client.close();
      assert.equal(await transport.exited, 0, transport.stderr);
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal((portal.requests()[LOGIN_PATH] ?? 0) - before, 1, "the tool ran exactly once");
      assert.ok(progress.length >= 1, "a progress notification reached the agent");
      assert.match(progress[0] ?? "", /waiting for an operator to approve/);
      const action = await store.getToolAction(id);
      assert.equal(action?.settlement, "succeeded");
      const approval = action?.approval;
      // Whoever won decided, with their own note.
      const notes: Record<string, string> = { alice: "in scope", bob: "" };
      assert.equal(approval?.state, "approved");
      assert.equal(approval?.note, notes[approval?.operator ?? ""]);
      const decisions = (await store.readDecisionPage(0, 100)).filter((d) => d.subject === id);
      assert.deepEqual(
        decisions.map((d) => d.kind),
        ["approve"],
      );
      // `raes operation` shows who approved it and when.
      const shown = JSON.parse((await raes(url, "operation", id, "--json")).stdout) as Record<
        string,
        unknown
      >;
      assert.equal(shown.approval, "approved");
      assert.equal(shown.approval_operator, approval?.operator);
      assert.equal(shown.approval_decided_at, approval?.decidedAt);
    });

    it("never runs a denied call: withheld with approval_denied; approve after deny is refused; no argument value is stored or logged", async (t) => {
      if (skip || !store) return t.skip("PostgreSQL unavailable");
      const canary = `canary-${letters(24)}`;
      const before = { ...portal.requests() };
      const { client, transport } = await gateway(dir, url, mapWith("required"), portal);
      const answer = client.callTool({ name: "probe_login", arguments: { path: `/${canary}` } });
      const id = await pendingApproval(store);
      const listed = await raes(url, "operations", "--needs-operator");
      assert.equal(listed.code, 0);
      assert.match(listed.stdout, /NEEDS/);
      assert.match(listed.stdout, /pending_approval/);
      assert.match(listed.stdout, /approve .*--store/);
      const denied = await raes(url, "deny", id, "--operator", "carol", "--note", "out of scope");
      assert.equal(denied.code, 0, denied.stderr);
      assert.match(denied.stdout, /^denied /);
      const result = (await answer) as CallToolResult;
      await client.close();
      assert.equal(await transport.exited, 0, transport.stderr);
      assert.equal(result.isError, true);
      assert.equal(meta(result, "raes/code"), "approval_denied");
      assert.equal(meta(result, "raes/settlement"), "withheld");
      assert.deepEqual(portal.requests(), before, "the upstream never saw it");
      const action = await store.getToolAction(id);
      assert.deepEqual(
        [action?.settlement, action?.withheldReason, action?.dispatchedAt, action?.approval?.operator],
        ["withheld", "approval_denied", undefined, "carol"],
      );
      const again = await raes(url, "deny", id);
      assert.equal(again.code, 0);
      assert.match(again.stdout, /already denied/);
      const approve = await raes(url, "approve", id);
      assert.equal(approve.code, 1);
      assert.match(approve.stderr, /approval\.already-denied/);
      const unknown = await raes(url, "approve", "no-such-operation");
      assert.notEqual(unknown.code, 0);
      // The canary: the held call's arguments reach no store cell, read, log or message.
      const message = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
      const searched = [
        ...(kind === "sqlite" ? [...filesBelow(dir), ...sqliteCells(join(dir, "control-plane.db"))] : []),
        ...(await storeReads(store)),
        text("gateway stderr", transport.stderr),
        text("agent's message", message),
        text("raes operations", listed.stdout),
      ];
      assert.deepEqual(placesHolding(searched, canary), []);
    });

    it("expires a held call when the agent hangs up: the gateway exits at once, and an approval after never runs the tool", async (t) => {
      if (skip || !store) return t.skip("PostgreSQL unavailable");
      const before = { ...portal.requests() };
      const { client, transport } = await gateway(dir, url, mapWith("required"), portal);
      const answer = client
        .callTool({ name: "probe_login", arguments: { path: "/admin" } })
        .catch(() => undefined);
      const id = await pendingApproval(store);
      // The agent hangs up (stdin closed) while its call is held; nobody is left to read an answer.
      await client.close();
      await answer;
      assert.equal(await transport.exited, 0, transport.stderr);
      const late = await raes(url, "approve", id);
      assert.equal(late.code, 1, late.stdout);
      assert.match(late.stderr, /approval\.expired/);
      assert.deepEqual(portal.requests(), before, "the upstream never saw it");
      const action = await store.getToolAction(id);
      // Expired by the hang-up itself, not by the invocation's timeout long after.
      assert.deepEqual(
        [action?.settlement, action?.withheldReason, action?.approval?.expiredBy],
        ["withheld", "approval_expired", "call_cancelled"],
      );
    });

    it("expires a call nobody decides on: withheld with approval_expired, never run; a call the `when` rule does not match runs at once", async (t) => {
      if (skip || !store) return t.skip("PostgreSQL unavailable");
      const rule =
        "{when: {type: object, required: [path], properties: {path: {const: /admin}}}, timeout_seconds: 1}";
      const { client, transport } = await gateway(dir, url, mapWith(rule), portal);
      const before = { ...portal.requests() };
      const held = (await client.callTool({
        name: "probe_login",
        arguments: { path: "/admin" },
      })) as CallToolResult;
      const free = (await client.callTool({
        name: "probe_login",
        arguments: { path: LOGIN_PATH },
      })) as CallToolResult;
      await client.close();
      assert.equal(await transport.exited, 0, transport.stderr);
      assert.equal(meta(held, "raes/code"), "approval_expired");
      assert.notEqual(free.isError, true, JSON.stringify(free));
      assert.equal(portal.requests()["/admin"], before["/admin"], "the held call never ran");
      assert.equal((portal.requests()[LOGIN_PATH] ?? 0) - (before[LOGIN_PATH] ?? 0), 1);
      const id = meta(held, "raes/action_instance_id") as string;
      const action = await store.getToolAction(id);
      assert.deepEqual(
        [action?.settlement, action?.withheldReason, action?.approval?.state, action?.approval?.expiredBy],
        ["withheld", "approval_expired", "expired", "timeout"],
      );
      const late = await raes(url, "approve", id);
      assert.equal(late.code, 1);
      assert.match(late.stderr, /approval\.expired/);
    });
  });
}
