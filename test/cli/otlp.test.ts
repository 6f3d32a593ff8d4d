import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { liveScenario } from "../fixtures/live/scenario.js";
import { EXAMPLE, ROOT } from "../helpers/example.js";
import { manifestWithTimeout } from "../helpers/live-model.js";
import { decodeOtlpJson, type Received } from "../helpers/otlp-json.js";
import { raes } from "./cli.js";

const LIVE = join(ROOT, "test", "fixtures", "live");
const TSX = import.meta.resolve("tsx");
const nodeTs = (file: string) => `${process.execPath} --import ${TSX} ${file}`;

describe("raes run --otlp URL with a real OTLP/HTTP receiver", () => {
  let dir = "";
  let receiver: Server;
  let base = "";
  const bodies: { path: string; type: string; body: string }[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "raes-otlp-"));
    receiver = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => {
        bodies.push({ path: req.url ?? "", type: req.headers["content-type"] ?? "", body });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("exports one execute_tool span per governed call: the gateway's MCP server span, with the affordance as an attribute; invoke_agent names the agent; the resource is the SDK default with service.name; gateway refusals have spans; no argument or result is sent", async () => {
    const canary = `canary-${randomUUID()}`;
    const manifest = join(dir, "manifest.json");
    writeFileSync(manifest, JSON.stringify(manifestWithTimeout(600)));
    const metaFile = join(dir, "meta.jsonl");
    const run = await raes(
      [
        "run",
        liveScenario(dir),
        "--manifest",
        manifest,
        "--agent-command",
        nodeTs(join(LIVE, "sdk-agent.ts")),
        "--mcp-upstream",
        `portal=META_FILE=${metaFile} ${nodeTs(join(LIVE, "counting-upstream.ts"))}`,
        "--map",
        join(LIVE, "map.yaml"),
        "--agent-logs",
        join(dir, "logs"),
        "--store",
        "memory:",
        "--otlp",
        base,
        "--json",
      ],
      { env: { AGENT_SCRIPT: `echo:${canary},write_db,call:drop_tables` } },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.ok(bodies.length > 0, "the receiver got an export");
    for (const b of bodies) {
      assert.equal(b.path, "/v1/traces");
      assert.match(b.type, /^application\/json/);
      assert.ok(!b.body.includes(canary), "an export carries the tool argument or result");
    }
    const spans = bodies.flatMap((b) => decodeOtlpJson(b.body));
    const names = JSON.stringify(spans.map((s) => [s.service, s.name]));
    const named = (service: string, name: string) =>
      spans.filter((s) => s.service === service && s.name === name);

    // The SDK's default resource (telemetry.sdk.*), merged with each process's service.name.
    for (const span of spans) {
      assert.equal(span.resource["telemetry.sdk.language"], "nodejs");
      assert.equal(span.resource["telemetry.sdk.name"], "opentelemetry");
      assert.match(String(span.resource["telemetry.sdk.version"]), /^\d+\.\d+\.\d+/);
    }
    assert.deepEqual([...new Set(spans.map((s) => s.service))].sort(), ["raes-mcp-gateway", "raes-ts"]);

    const [invocation] = named("raes-ts", `invoke_agent ${EXAMPLE.participant}`);
    assert.ok(invocation, names);
    assert.equal(invocation.parentSpanId, "");
    assert.equal(invocation.attributes["gen_ai.operation.name"], "invoke_agent");
    assert.equal(invocation.attributes["gen_ai.agent.name"], EXAMPLE.participant);
    // The port's refusal, and the gateway's own, which the gateway told the invocation about.
    assert.deepEqual(
      invocation.events.map((e) => [
        e.name,
        e.attributes["raes.refusal.code"],
        e.attributes["raes.refused_by"],
        e.attributes["gen_ai.tool.name"],
      ]),
      [
        ["raes.tool_action.refused", "target_outside_binding", undefined, undefined],
        ["raes.tool_action.refused", "tool_not_mapped", "gateway", "drop_tables"],
      ],
    );

    // One execute_tool span per governed call: the runtime makes none beside the gateway's.
    const executeTool = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "execute_tool");
    assert.deepEqual(
      executeTool.map((s) => [s.service, s.name]),
      [
        ["raes-mcp-gateway", "tools/call echo"],
        ["raes-mcp-gateway", "tools/call write_db"],
        ["raes-mcp-gateway", "tools/call drop_tables"],
      ],
    );
    const [echo, write, unmapped] = executeTool as [Received, Received, Received];
    const SERVER = 2;
    for (const span of [echo, write, unmapped]) {
      // The agent passed the invocation's TRACEPARENT in _meta, so the gateway's spans join its trace.
      assert.equal(span.traceId, invocation.traceId);
      assert.equal(span.parentSpanId, invocation.spanId);
      assert.equal(span.kind, SERVER);
      assert.equal(span.attributes["mcp.method.name"], "tools/call");
      assert.equal(span.attributes["gen_ai.tool.name"], span.name.slice("tools/call ".length));
      assert.match(String(span.attributes["jsonrpc.request.id"]), /^\d+$/);
      assert.match(String(span.attributes["mcp.session.id"]), /.+/);
      assert.match(String(span.attributes["mcp.protocol.version"]), /^\d{4}-\d{2}-\d{2}$/);
      assert.equal(span.attributes["network.transport"], "pipe");
      assert.match(String(span.attributes["gen_ai.tool.call.id"]), /.+/);
    }
    assert.equal(new Set([echo, write, unmapped].map((s) => s.attributes["mcp.session.id"])).size, 1);
    assert.equal(new Set([echo, write, unmapped].map((s) => s.attributes["jsonrpc.request.id"])).size, 3);
    for (const span of [echo, write])
      assert.equal(span.attributes["raes.tool_affordance.address"], EXAMPLE.affordance);
    assert.match(String(echo.attributes["raes.tool_action.id"]), /:tool=1$/);
    assert.equal(echo.attributes["raes.tool_action.settlement"], "succeeded");
    assert.equal(echo.status, 0);
    assert.deepEqual(
      echo.events.map((e) => e.name),
      ["raes.tool_action.dispatched"],
    );
    assert.deepEqual(
      write.events.map((e) => [e.name, e.attributes["raes.refusal.code"]]),
      [["raes.tool_action.refused", "target_outside_binding"]],
    );
    assert.equal(write.attributes["error.type"], "target_outside_binding");
    // A call the gateway refuses itself (the tool is not in the map) has its span too.
    assert.equal(unmapped.attributes["error.type"], "tool_not_mapped");
    assert.equal(unmapped.attributes["raes.tool_affordance.address"], undefined);
    assert.equal(unmapped.status, 2);
    assert.deepEqual(
      unmapped.events.map((e) => [
        e.name,
        e.attributes["raes.refusal.code"],
        e.attributes["raes.refused_by"],
      ]),
      [["raes.tool_action.refused", "tool_not_mapped", "gateway"]],
    );
    const received = readFileSync(metaFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(received, [{ traceparent: `00-${echo.traceId}-${echo.spanId}-01` }]);
  });

  it("refuses a URL that is not http(s) as a usage error", async () => {
    const r = await raes(["run", "x.yaml", "--manifest", "m.json", "--runtime", "r.ts", "--otlp", "ftp://x"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--otlp.*http:\/\//s);
  });
});
