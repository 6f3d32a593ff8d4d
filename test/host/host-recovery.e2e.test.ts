import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type PortalService, STALLED_PATH, startPortalService } from "../../src/demo/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { ROOT } from "../helpers/example.js";
import { manifestWithTimeout } from "../helpers/live-model.js";

const MAIN = join(ROOT, "dist", "cli", "main.js");
const SERVER = join(ROOT, "dist", "demo", "server.js");
const SCENARIO = join(ROOT, "examples", "enterprise-participant-evidence-loop.sdl.yaml");
const MANIFEST = join(ROOT, "examples", "harness-backend.manifest.json");
const MAP = join(ROOT, "examples", "demo", "mcp-map.yaml");

function gatewayArgs(store: string, manifest = MANIFEST, extra: readonly string[] = []): string[] {
  return [
    MAIN,
    "mcp-gateway",
    "--scenario",
    SCENARIO,
    "--manifest",
    manifest,
    "--map",
    MAP,
    "--store",
    store,
    ...extra,
    "--",
    process.execPath,
    SERVER,
  ];
}

async function connect(args: readonly string[], portal: PortalService) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...args],
    env: { PATH: process.env.PATH ?? "", DEMO_PORTAL_URL: portal.url },
    stderr: "pipe",
  });
  const client = new Client({ name: "host-recovery-test", version: "1.0.0" });
  const gone = new Promise<void>((resolve) => {
    client.onclose = () => resolve();
  });
  await client.connect(transport);
  return { client, transport, gone };
}

describe("host mode recovery and bounds", () => {
  let dir: string;
  let portal: PortalService;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "raes-host-recovery-"));
    portal = await startPortalService();
  });
  after(async () => {
    await portal.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("recovers a SIGKILLed session's dispatched call as indeterminate, and the next session is stopped", async () => {
    const store = `sqlite:${join(dir, "killed.db")}`;
    const first = await connect(gatewayArgs(store, MANIFEST, ["--timeout-ms", "600000"]), portal);
    const call = first.client
      .callTool({ name: "probe_login", arguments: { path: STALLED_PATH } })
      .catch(() => undefined);
    // The upstream has the call, so the dispatch is on disk: kill the gateway mid-call.
    while ((portal.requests()[STALLED_PATH] ?? 0) === 0) await new Promise((r) => setTimeout(r, 20));
    process.kill(first.transport.pid as number, "SIGKILL");
    await first.gone;
    await call;
    const second = await connect(gatewayArgs(store), portal);
    const answer = (await second.client.callTool({ name: "probe_login", arguments: {} })) as CallToolResult;
    await second.client.close();
    assert.equal(answer._meta?.["raes/code"], "scheduler_stopped");
    const opened = await openControlPlaneStore(store, { create: false });
    try {
      const [action] = await opened.listToolActions({});
      assert.equal(action?.settlement, "indeterminate");
      const invocation = await opened.getOperation(action?.invocationId as string);
      assert.equal(invocation?.state, "failed", "the interrupted attempt is consumed");
    } finally {
      await opened.close();
    }
    assert.equal(portal.requests()[STALLED_PATH], 1, "the effect was not repeated");
  });

  it("ends the session when the offer's timeout_seconds expires: the invocation fails with timeout", async () => {
    const manifest = join(dir, "short-timeout.manifest.json");
    writeFileSync(manifest, JSON.stringify(manifestWithTimeout(1)));
    const store = `sqlite:${join(dir, "timeout.db")}`;
    const session = await connect(gatewayArgs(store, manifest), portal);
    await session.client.callTool({ name: "probe_login", arguments: {} });
    // Stdin stays open and the idle timeout is 300 s: only the offer's bound ends it.
    await session.gone;
    const opened = await openControlPlaneStore(store, { create: false });
    try {
      const [invocation] = await opened.listOperations({ kind: "scheduler_invocation" });
      assert.equal(invocation?.state, "failed");
      const events = await opened.listEvents({});
      const outcome = events.find((e) => e.action_instance_id === invocation?.id && e.action_result);
      assert.equal(outcome?.action_result?.failure_class, "timeout", JSON.stringify(events));
    } finally {
      await opened.close();
    }
  });

  it("answers a call still at the upstream when the offer's timeout closes the invocation, with the settlement the close recorded, not at --timeout-ms", {
    // Without the answer at the close, the call would wait for --timeout-ms (600 s): the test times out.
    timeout: 60_000,
  }, async () => {
    const manifest = join(dir, "close-answers.manifest.json");
    writeFileSync(manifest, JSON.stringify(manifestWithTimeout(2)));
    const store = `sqlite:${join(dir, "close-answers.db")}`;
    const before = portal.requests()[STALLED_PATH] ?? 0;
    const session = await connect(gatewayArgs(store, manifest, ["--timeout-ms", "600000"]), portal);
    const answer = (await session.client.callTool(
      { name: "probe_login", arguments: { path: STALLED_PATH } },
      undefined,
      { timeout: 600_000 },
    )) as CallToolResult;
    await session.gone;
    assert.equal(answer.isError, true);
    assert.equal(answer._meta?.["raes/code"], "invocation_returned_without_outcome", JSON.stringify(answer));
    assert.equal(answer._meta?.["raes/settlement"], "indeterminate");
    assert.equal(portal.requests()[STALLED_PATH], before + 1, "the upstream had the call once");
    const opened = await openControlPlaneStore(store, { create: false });
    try {
      const [action, ...others] = await opened.listToolActions({});
      assert.equal(others.length, 0);
      assert.equal(action?.id, answer._meta?.["raes/action_instance_id"]);
      assert.equal(action?.settlement, "indeterminate");
      assert.equal(action?.unknownReason, "invocation_returned_without_outcome");
      const events = (await opened.listEvents({})).filter((e) => e.action_instance_id === action?.id);
      assert.deepEqual(
        events.map((e) => e.event_type),
        ["action_attempted", "state_transition_recorded", "observation_emitted"],
        "one settlement, written by the close",
      );
    } finally {
      await opened.close();
    }
  });

  it("refuses mixed or incomplete modes and an unknown participant with exit 2, naming the problem", async () => {
    const run = (args: readonly string[]) =>
      promisify(execFile)(process.execPath, [...args]).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
    const store = `sqlite:${join(dir, "usage.db")}`;
    const both = await run([
      ...gatewayArgs(store).slice(0, 2),
      "--port-socket",
      "/tmp/x.sock",
      ...gatewayArgs(store).slice(2),
    ]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /either --scenario .* or --port-socket/);
    const noManifest = await run([
      MAIN,
      "mcp-gateway",
      "--scenario",
      SCENARIO,
      "--map",
      MAP,
      "--",
      "node",
      "x.js",
    ]);
    assert.equal(noManifest.code, 2);
    assert.match(noManifest.stderr, /--scenario needs --manifest/);
    const stray = await run([
      MAIN,
      "mcp-gateway",
      "--port-socket",
      "/tmp/x.sock",
      "--store",
      store,
      "--map",
      MAP,
      "--",
      "node",
      "x.js",
    ]);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /go with --scenario/);
    const unknown = await run(gatewayArgs(store, MANIFEST, ["--participant", "participant.behavior.nobody"]));
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /participant\.behavior\.nobody is not an autonomous participant.*participant\.behavior\.participant-agent/,
    );
  });
});
