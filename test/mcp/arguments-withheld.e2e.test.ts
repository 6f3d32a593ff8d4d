import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { LOGIN_PATH, type PortalService, startPortalService } from "../../src/demo/index.js";
import { listOperatorWaits } from "../../src/operations/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { filesBelow, placesHolding, sqliteCells, storeReads, text } from "../helpers/canary-scan.js";
import { demoHostGateway, demoMapWith } from "../helpers/demo-gateway.js";
import { ROOT } from "../helpers/example.js";

const run = promisify(execFile);
const MAIN = join(ROOT, "dist", "cli", "main.js");

/** The demo map with an `arguments` rule on probe_login: only the login path may be probed. */
function mapWithRule(): string {
  return demoMapWith(`    arguments:
      type: object
      properties:
        path: {type: string, pattern: "^/login$"}
      additionalProperties: false
`);
}

/** A canary the demo server itself would accept as a path (lower-case letters and dashes). */
function letters(n: number): string {
  return Array.from({ length: n }, () => String.fromCharCode(97 + randomInt(26))).join("");
}

describe("an arguments rule in host mode (demo upstream, SQLite store, OTLP receiver)", () => {
  let dir = "";
  let portal: PortalService;
  let receiver: Server;
  let otlp = "";
  const exports: string[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "raes-args-"));
    portal = await startPortalService();
    receiver = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => {
        exports.push(body);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    otlp = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await portal.close();
    await new Promise((resolve) => receiver.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("withholds a call whose arguments do not match: admitted, settled withheld with arguments_rejected, never upstream; no argument value is stored, logged or exported", async () => {
    const canary = `canary-${letters(24)}`;
    const map = join(dir, "map.yaml");
    writeFileSync(map, mapWithRule());
    const storeFile = join(dir, "control-plane.db");
    const store = `sqlite:${storeFile}`;
    const transport = demoHostGateway(map, store, portal, ["--otlp", otlp]);
    const client = new Client({ name: "arguments-rule-test", version: "1.0.0" });
    await client.connect(transport);
    const rejected = (await client.callTool({
      name: "probe_login",
      arguments: { path: `/${canary}` },
    })) as CallToolResult;
    const allowed = (await client.callTool({
      name: "probe_login",
      arguments: { path: LOGIN_PATH },
    })) as CallToolResult;
    await client.close();
    assert.equal(await transport.exited, 0, transport.stderr);

    // The agent is told why, in a message that quotes the schema and never the value.
    assert.equal(rejected.isError, true);
    assert.equal(rejected._meta?.["raes/code"], "arguments_rejected");
    assert.equal(rejected._meta?.["raes/settlement"], "withheld");
    const message = rejected.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    assert.equal(
      message,
      'raes: arguments_rejected: argument /path must match pattern "^/login$" (pattern); the tool was not run',
    );
    assert.notEqual(allowed.isError, true, JSON.stringify(allowed));

    // The upstream never saw the rejected call: the portal got the allowed probe only.
    assert.deepEqual(portal.requests(), { [LOGIN_PATH]: 1 });

    // Admitted (it took the first admission slot), then withheld before dispatch, with its reason.
    const opened = await openControlPlaneStore(store, { create: false });
    let reads: Awaited<ReturnType<typeof storeReads>>;
    try {
      const actions = await opened.listToolActions({});
      assert.deepEqual(
        actions.map((a) => [
          a.admissionOrdinal,
          a.settlement,
          a.withheldReason,
          a.dispatchedAt === undefined,
        ]),
        [
          [1, "withheld", "arguments_rejected", true],
          [2, "succeeded", undefined, false],
        ],
      );
      const withheld = actions[0]?.id as string;
      assert.equal(rejected._meta?.["raes/action_instance_id"], withheld);
      const operation = await opened.getOperation(withheld);
      assert.equal(operation?.settlement, "withheld");
      assert.equal(operation?.withheldReason, "arguments_rejected");
      reads = await storeReads(opened);
    } finally {
      await opened.close();
    }
    // The operator sees why: `raes operation` and `raes operations` name the reason.
    const withheldId = rejected._meta?.["raes/action_instance_id"] as string;
    const one = await run(process.execPath, [MAIN, "operation", withheldId, "--store", store, "--json"]);
    const wire = JSON.parse(one.stdout) as Record<string, unknown>;
    assert.deepEqual(
      [wire.settlement, wire.withheld_reason, wire.unknown_reason],
      ["withheld", "arguments_rejected", null],
    );
    const listed = await run(process.execPath, [
      MAIN,
      "operations",
      "--store",
      store,
      "--kind",
      "tool_action",
    ]);
    assert.match(listed.stdout, /\(withheld\) +0:tool=1 +tool=probe_login reason=arguments_rejected/);
    reads.push(text("raes operation", one.stdout), text("raes operations", listed.stdout));
    assert.match(transport.stderr, /withheld probe_login \(.*:tool=1\): arguments_rejected/);

    // The canary: no spelling of the value in the store's files or tables, its reads, the logs or the spans.
    assert.ok(exports.length > 0, "the OTLP receiver got the gateway's spans");
    assert.ok(
      exports.some((body) => body.includes("arguments_rejected")),
      "the spans carry the code",
    );
    const searched = [
      ...filesBelow(dir),
      ...sqliteCells(storeFile),
      ...reads,
      text("gateway stderr", transport.stderr),
      text("agent's message", message),
      ...exports.map((body, i) => text(`OTLP export ${i}`, body)),
    ];
    assert.deepEqual(placesHolding(searched, canary), []);
    // The scan can find it: the test's own record of the call holds it.
    assert.deepEqual(placesHolding([text("the call", { path: `/${canary}` })], canary), ["the call"]);
  });
  it("holds a call for approval and runs it once approved; the held call's value reaches no store, log or span", async () => {
    const canary = `canary-${letters(24)}`;
    const map = join(dir, "map-approval.yaml");
    const demo = readFileSync(join(ROOT, "examples", "demo", "mcp-map.yaml"), "utf8");
    writeFileSync(
      map,
      demo.replace(/(evidence_refs: \[content\.participant-observation\]\n)/, "$1    approval: required\n"),
    );
    const storeFile = join(dir, "approval.db");
    const store = `sqlite:${storeFile}`;
    const exportedBefore = exports.length;
    const transport = demoHostGateway(map, store, portal, ["--otlp", otlp]);
    const client = new Client({ name: "approval-canary-test", version: "1.0.0" });
    await client.connect(transport);
    const held = client.callTool({ name: "probe_login", arguments: { path: `/${canary}` } });
    // Once the gateway has written the hold, approve it from another process, as an operator would.
    let id = "";
    for (let round = 0; round < 1200 && id === ""; round += 1) {
      // The store may not exist until the gateway's first admission; bounded, so a hang fails the test.
      const opened = await openControlPlaneStore(store, { create: false }).catch(() => undefined);
      if (opened) {
        try {
          const waits = await listOperatorWaits(opened, { limit: 10 });
          id = waits.find((w) => w.need === "pending_approval")?.entry.id ?? "";
        } finally {
          await opened.close();
        }
      }
      if (id === "") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.notEqual(id, "", "the gateway held the call for approval");
    const approved = await run(process.execPath, [
      MAIN,
      "approve",
      id,
      "--store",
      store,
      "--operator",
      "white-cell",
    ]);
    const result = (await held) as CallToolResult;
    await client.close();
    assert.equal(await transport.exited, 0, transport.stderr);
    // The tool ran: the demo portal answered (a 404 for a path it does not serve, an upstream result).
    assert.match(JSON.stringify(result.content), /reachable/);
    assert.equal(portal.requests()[`/${canary}`], 1, "the approved call reached the upstream once");

    const spans = exports.slice(exportedBefore);
    assert.ok(spans.length > 0, "the OTLP receiver got the gateway's spans");
    const reopened = await openControlPlaneStore(store, { create: false });
    let reads: Awaited<ReturnType<typeof storeReads>>;
    try {
      reads = await storeReads(reopened);
    } finally {
      await reopened.close();
    }
    const searched = [
      ...filesBelow(dir),
      ...sqliteCells(storeFile),
      ...reads,
      text("gateway stderr", transport.stderr),
      text("raes approve", approved.stdout + approved.stderr),
      ...spans.map((body, i) => text(`OTLP export ${i}`, body)),
    ];
    assert.deepEqual(placesHolding(searched, canary), []);
  });
});
