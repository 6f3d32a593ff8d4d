import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SpanKind, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { loadToolMap, startHttpGateway } from "../../src/mcp/index.js";
import { childNodeArgs } from "../helpers/compiled/index.js";
import { ROOT } from "../helpers/example.js";
import { oneInvocation } from "../port/support/invocation.js";

const FIXTURES = join(ROOT, "test", "mcp", "fixtures");
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const traceparentOf = (span: { spanContext(): { traceId: string; spanId: string } }) =>
  `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

describe("traceparent through the MCP gateway (SDK client, real upstream)", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-trace-"));
    trace.setGlobalTracerProvider(provider);
  });
  after(async () => {
    trace.disable();
    await provider.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the gateway's tools/call span is a child of the agent's span, carries the MCP session's attributes, and the upstream gets the gateway span's context", async () => {
    const canary = `canary-${randomUUID()}`;
    const metaFile = join(dir, "meta.jsonl");
    const agentSpan = trace.getTracer("test-agent").startSpan("invoke_agent test-agent");
    const results: CallToolResult[] = [];
    let sessionId: string | undefined;
    let protocolVersion: string | undefined;
    await oneInvocation(
      {
        body: async (port) => {
          const loaded = loadToolMap(join(FIXTURES, "map.yaml"));
          assert.ok(loaded.ok);
          const gateway = await startHttpGateway({
            port,
            map: loaded.map,
            upstream: {
              command: process.execPath,
              args: childNodeArgs(join(FIXTURES, "upstream-server.ts")),
              env: {
                PATH: process.env.PATH ?? "",
                UPSTREAM_COUNT_FILE: join(dir, "count.txt"),
                UPSTREAM_META_FILE: metaFile,
              },
            },
            timeoutMs: 10_000,
            listen: { host: "127.0.0.1", port: 0 },
          });
          const client = new Client({ name: "traced-agent", version: "1.0.0" });
          try {
            const transport = new StreamableHTTPClientTransport(new URL(gateway.url));
            await client.connect(transport);
            sessionId = transport.sessionId;
            protocolVersion = transport.protocolVersion;
            const meta = { traceparent: traceparentOf(agentSpan), tracestate: "vendor=agent" };
            const call = async (name: string, withMeta: boolean) =>
              results.push(
                (await client.callTool({
                  name,
                  arguments: { text: canary },
                  ...(withMeta ? { _meta: meta } : {}),
                })) as CallToolResult,
              );
            await call("echo", true);
            await call("write_db", true);
            await call("echo", false);
          } finally {
            await client.close();
            await gateway.close();
          }
        },
      },
      async () => undefined,
    );
    agentSpan.end();
    assert.equal(results[0]?.isError, undefined, JSON.stringify(results[0]));
    assert.equal(results[1]?.isError, true);

    const spans = exporter.getFinishedSpans().filter((s) => s.attributes["mcp.method.name"] === "tools/call");
    assert.deepEqual(
      spans.map((s) => s.name),
      ["tools/call echo", "tools/call write_db", "tools/call echo"],
    );
    assert.ok(sessionId && protocolVersion);
    for (const span of spans) {
      assert.equal(span.kind, SpanKind.SERVER);
      // The session's public id (a digest): the Mcp-Session-Id is a secret, never put on a span.
      assert.equal(
        span.attributes["mcp.session.id"],
        createHash("sha256").update(sessionId).digest("hex").slice(0, 32),
      );
      assert.ok(!JSON.stringify(span.attributes).includes(sessionId));
      assert.equal(span.attributes["mcp.protocol.version"], protocolVersion);
      assert.equal(span.attributes["network.transport"], "tcp");
    }
    assert.deepEqual(
      spans.map((s) => s.attributes["jsonrpc.request.id"]),
      ["1", "2", "3"],
    );
    const [traced, refused, untraced] = spans as [ReadableSpan, ReadableSpan, ReadableSpan];
    const agent = agentSpan.spanContext();
    for (const span of [traced, refused]) {
      assert.equal(span.spanContext().traceId, agent.traceId);
      assert.equal(span.parentSpanContext?.spanId, agent.spanId);
      assert.equal(span.spanContext().traceState?.serialize(), "vendor=agent");
    }
    // Without a traceparent the gateway's span starts a trace of its own.
    assert.equal(untraced.parentSpanContext, undefined);
    assert.notEqual(untraced.spanContext().traceId, agent.traceId);

    assert.equal(traced.attributes["gen_ai.operation.name"], "execute_tool");
    assert.equal(traced.attributes["gen_ai.tool.name"], "echo");
    assert.equal(traced.attributes["raes.tool_action.settlement"], "succeeded");
    assert.match(String(traced.attributes["raes.tool_action.id"]), /:tool=1$/);
    assert.deepEqual(
      traced.events.map((e) => e.name),
      ["raes.tool_action.dispatched"],
    );
    assert.deepEqual(
      refused.events.map((e) => [e.name, e.attributes]),
      [
        [
          "raes.tool_action.refused",
          { "raes.refusal.code": "target_outside_binding", "raes.port.call": "admit" },
        ],
      ],
    );
    assert.equal(refused.attributes["error.type"], "target_outside_binding");

    // The upstream saw each forwarded call's gateway span as its parent, never the agent's span.
    const received = readFileSync(metaFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(received, [
      { traceparent: traceparentOf(traced), tracestate: "vendor=agent" },
      { traceparent: traceparentOf(untraced) },
    ]);
    assert.ok(
      !JSON.stringify(exporter.getFinishedSpans().map((s) => [s.attributes, s.events])).includes(canary),
    );
  });
});
