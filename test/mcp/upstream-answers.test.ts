import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { META_CODE } from "../../src/mcp/index.js";
import { oneInvocation } from "../port/support/invocation.js";
import { rawHttpGateway } from "./fixtures/http-client.js";
import { withRawGateway } from "./fixtures/raw-gateway.js";

/** Runs the calls through a real GovernedCalls, port and raw upstream process; returns answers and settlements. */
async function governed(calls: readonly { name: string; arguments?: Record<string, unknown> }[]) {
  return oneInvocation(
    {
      body: async (port) => {
        return withRawGateway(port, async (governedCalls) => {
          const answers: unknown[] = [];
          for (const [index, call] of calls.entries()) {
            const signal = new AbortController().signal;
            answers.push(
              await governedCalls
                .handle({ name: call.name, arguments: call.arguments, requestId: index, signal })
                .catch((error: unknown) => error),
            );
          }
          return answers;
        });
      },
    },
    async ({ store, value, manager }) => ({
      answers: value ?? [],
      actions: await store.listToolActions({}),
      stopped: manager.schedulers().filter((s) => s.lifecycle === "stopped").length,
    }),
  );
}

describe("what the upstream answers", () => {
  it("a JSON-RPC error reply of any code, even -32000 or -32001, is an answer: the action failed", async () => {
    const { answers, actions, stopped } = await governed([
      { name: "rpc_error", arguments: { code: -32000 } },
      { name: "rpc_error", arguments: { code: -32001 } },
      { name: "rpc_error", arguments: { code: -32603 } },
      { name: "rpc_error", arguments: { code: 42 } },
    ]);
    for (const [index, answer] of answers.entries()) {
      assert.ok(answer instanceof McpError, `answer ${index} is the upstream's JSON-RPC error`);
      assert.match((answer as McpError).message, /the upstream refused/);
    }
    assert.deepEqual(
      actions.map((a) => a.settlement),
      ["failed", "failed", "failed", "failed"],
    );
    assert.equal(stopped, 0, "an answered call does not stop the scheduler");
  });

  it("a JSON-RPC error reaches a real MCP client as the upstream sent it: its code, its message once", async () => {
    const seen = await oneInvocation(
      {
        body: async (port) => {
          const gateway = await rawHttpGateway(port);
          const client = new Client({ name: "error-agent", version: "1.0.0" });
          try {
            await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
            return await client
              .callTool({ name: "rpc_error", arguments: { code: -32001 } })
              .catch((error: unknown) => error);
          } finally {
            await client.close();
            await gateway.close();
          }
        },
      },
      async ({ value }) => value,
    );
    assert.ok(seen instanceof McpError, "the client gets a JSON-RPC error");
    assert.equal(seen.code, -32001);
    // The client's SDK prefixes "MCP error <code>: " itself; the upstream's message follows, once.
    assert.equal(seen.message, "MCP error -32001: the upstream refused");
  });

  it("result: null is upstream_result_invalid at once, not a timeout", async () => {
    const { answers, actions } = await governed([{ name: "result_null" }, { name: "echo" }]);
    const first = answers[0] as { isError?: boolean; _meta?: Record<string, unknown> };
    assert.equal(first.isError, true);
    assert.equal(first._meta?.[META_CODE], "upstream_result_invalid");
    assert.deepEqual(
      actions.map((a) => [a.settlement, a.unknownReason ?? null]),
      [
        ["indeterminate", "upstream_result_invalid"],
        ["succeeded", null],
      ],
    );
  });
});
