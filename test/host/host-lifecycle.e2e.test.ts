import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openControlPlaneStore } from "../../src/store/index.js";
import { EXAMPLE_HOST_INPUTS } from "../helpers/example.js";
import {
  eventually,
  exitsWithin,
  hangUpThenTerminate,
  spawnGateway,
} from "../mcp/fixtures/gateway-process.js";
import { RAW_MAP_TEXT } from "../mcp/fixtures/raw-map.js";

/**
 * How long a gateway may take to be gone once signalled: far more than it takes (a few seconds),
 * far less than the 600 s call timeout or the 300 s approval timeout that kept it up before.
 */
const GONE_WITHIN_MS = 25_000;

/** The raw map with `echo` held for approval: every call waits for an operator, 300 s at most. */
const HELD_MAP_TEXT = RAW_MAP_TEXT.replace(
  /( {2}echo:\n(?: {4}.*\n)*? {4}targets: .*\n)/,
  "$1    approval: required\n",
);

/** The tool actions the store holds, as [tool, settlement, reason]. */
async function settled(store: string): Promise<string[][]> {
  const opened = await openControlPlaneStore(store, { create: false });
  try {
    const actions = await opened.listToolActions({});
    return actions.map((a) => [
      a.request.toolName ?? "?",
      a.settlement ?? "unsettled",
      a.unknownReason ?? a.withheldReason ?? "",
    ]);
  } finally {
    await opened.close();
  }
}

/** A TCP port on 127.0.0.1 where nothing listens (one just let go). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("host mode stops on a signal, promptly, whatever its calls wait for", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-host-life-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  function host(name: string, map: string, extra: readonly string[] = []) {
    const place = mkdtempSync(join(dir, `${name}-`));
    const mapFile = join(place, "map.yaml");
    writeFileSync(mapFile, map);
    const store = `sqlite:${join(place, "control-plane.db")}`;
    const args = [
      ...EXAMPLE_HOST_INPUTS,
      "--map",
      mapFile,
      "--store",
      store,
      "--timeout-ms",
      "600000",
      ...extra,
    ];
    return { store, gateway: spawnGateway(place, args, { RAW_UPSTREAM_STUBBORN: "1" }) };
  }

  it("over stdio, SIGTERM after the client hung up cuts the call short: exit 0, the action indeterminate gateway_shutdown", async () => {
    const { store, gateway } = host("stdio", RAW_MAP_TEXT);
    assert.equal(await hangUpThenTerminate(gateway, GONE_WITHIN_MS), 0);
    assert.deepEqual(await settled(store), [["stall", "indeterminate", "gateway_shutdown"]]);
  });

  it("over HTTP, SIGTERM with one call held for approval and one waiting on the upstream: exit 0, withheld and indeterminate", async () => {
    const { store, gateway } = host("http", HELD_MAP_TEXT, ["--http", "127.0.0.1:0"]);
    const pids = await gateway.upstreamPids();
    const served = /serving MCP \(Streamable HTTP\) at (\S+)/;
    assert.ok(await eventually(() => served.test(gateway.stderr()), 60_000), gateway.stderr());
    const url = served.exec(gateway.stderr())?.[1] as string;
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const opened = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    await opened.text();
    const session = opened.headers.get("mcp-session-id") as string;
    const call = (id: number, name: string) =>
      fetch(url, {
        method: "POST",
        headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-03-26" },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } }),
      }).then(
        (response) => response.text(),
        () => "",
      );
    const answers = [call(2, "stall"), call(3, "echo")];
    assert.ok(await eventually(() => gateway.upstreamCalls().includes("stall"), 60_000));
    assert.ok(await eventually(() => /holding echo/.test(gateway.stderr()), 60_000), gateway.stderr());
    gateway.child.kill("SIGTERM");
    assert.equal(await exitsWithin(gateway, GONE_WITHIN_MS, pids), 0);
    await Promise.all(answers);
    assert.deepEqual((await settled(store)).sort(), [
      ["echo", "withheld", "approval_expired"],
      ["stall", "indeterminate", "gateway_shutdown"],
    ]);
  });
});

describe("host mode checks its store before it serves", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-host-store-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts host mode on `store`; it must refuse before starting the upstream or serving. */
  async function refused(name: string, store: string) {
    const place = mkdtempSync(join(dir, `${name}-`));
    const mapFile = join(place, "map.yaml");
    writeFileSync(mapFile, RAW_MAP_TEXT);
    const gateway = spawnGateway(place, [...EXAMPLE_HOST_INPUTS, "--map", mapFile, "--store", store]);
    const code = await exitsWithin(gateway, 60_000);
    assert.ok(!existsSync(join(place, "upstream.pid")), "the upstream was never started");
    assert.doesNotMatch(gateway.stderr(), /host mode: running/);
    return { code, stderr: gateway.stderr() };
  }

  it("refuses a file that is not a store with store.not-a-store, exit 2, as raes run does", async () => {
    const file = join(dir, "not-a-store.yaml");
    writeFileSync(file, "tools: {}\n");
    const { code, stderr } = await refused("not-a-store", `sqlite:${file}`);
    assert.equal(code, 2);
    assert.match(
      stderr,
      /^raes: store\.not-a-store: sqlite:.*not-a-store\.yaml is not a control-plane store/m,
    );
  });

  it("refuses a PostgreSQL store nothing answers at with ledger_unavailable, exit 1, as raes run does", async () => {
    const { code, stderr } = await refused("unreachable", `postgres://127.0.0.1:${await deadPort()}/test`);
    assert.equal(code, 1);
    assert.match(stderr, /^raes: ledger_unavailable: control-plane store postgres:.* is unavailable/m);
  });
});
