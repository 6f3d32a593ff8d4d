import assert from "node:assert/strict";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { HttpGatewayRefusal, toolCallIdFor } from "../../../src/mcp/index.js";
import type { ControlPlaneStore } from "../../../src/store/index.js";
import { oneInvocation } from "../../port/support/invocation.js";
import {
  INITIALIZE,
  inSession,
  NEVER_PORT,
  openSession,
  rawHttpGateway,
  send,
} from "../fixtures/http-client.js";

const codeOf = (json: unknown) => (json as { error?: { data?: { code?: string } } }).error?.data?.code;

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** A `tools/call` of the fixture upstream's `stall` tool, which never answers. */
const stallCall = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "stall", arguments: {} },
});

/**
 * Runs `body` inside one invocation: an HTTP gateway over its port (calls time out after
 * `timeoutMs`) with a session open on it; the gateway closes after, whatever `body` does.
 */
async function inOpenSession(
  timeoutMs: number,
  body: (gateway: { readonly url: string }, sessionId: string, store: ControlPlaneStore) => Promise<void>,
): Promise<void> {
  await oneInvocation(
    {
      body: async (port, { store }) => {
        const gateway = await rawHttpGateway(port, { timeoutMs });
        try {
          const { sessionId } = await openSession(gateway.url);
          assert.ok(sessionId);
          await body(gateway, sessionId, store);
        } finally {
          await gateway.close();
        }
      },
    },
    async () => undefined,
  );
}

describe("HTTP gateway sessions", () => {
  it("caps sessions per client address: a full address gets 503, another loopback address still opens one", async () => {
    const gateway = await rawHttpGateway(NEVER_PORT);
    try {
      for (let i = 0; i < 16; i += 1) {
        const { exchange } = await openSession(gateway.url);
        assert.equal(exchange.status, 200, `session ${i + 1} opens`);
      }
      const refused = await openSession(gateway.url);
      assert.equal(refused.exchange.status, 503);
      assert.equal(refused.sessionId, undefined);
      assert.equal(codeOf(refused.exchange.json), "mcp-http.session-limit");
      assert.equal(refused.exchange.headers["retry-after"], "300");
      const other = await openSession(gateway.url, { localAddress: "127.0.0.2" });
      assert.equal(other.exchange.status, 200, "another client address is not locked out");
    } finally {
      await gateway.close();
    }
  });

  it("initializations sent at once from one address never take more places than its cap", async () => {
    const gateway = await rawHttpGateway(NEVER_PORT, { maxSessionsPerClient: 4 });
    try {
      const opened = await Promise.all(Array.from({ length: 20 }, () => openSession(gateway.url)));
      const statuses = opened.map((o) => o.exchange.status).sort();
      assert.deepEqual(statuses, [...Array(4).fill(200), ...Array(16).fill(503)]);
    } finally {
      await gateway.close();
    }
  });

  it("a session nobody uses expires after the idle timeout, and its place opens again", {
    timeout: 30_000,
  }, async () => {
    const gateway = await rawHttpGateway(NEVER_PORT, { idleTimeoutMs: 300, maxSessionsPerClient: 1 });
    try {
      const first = await openSession(gateway.url);
      assert.ok(first.sessionId);
      const sessionId = first.sessionId;
      assert.equal((await openSession(gateway.url)).exchange.status, 503, "the one place is taken");
      // Polling with new initializations, which never touch the idle session.
      await until(async () => (await openSession(gateway.url)).exchange.status === 200);
      const expired = await inSession(gateway.url, sessionId, { jsonrpc: "2.0", id: 2, method: "ping" });
      assert.equal(expired.status, 404);
      assert.equal(codeOf(expired.json), "mcp-http.session-unknown");
    } finally {
      await gateway.close();
    }
  });

  it("a session in use answers every request; DELETE ends it and frees its place", async () => {
    const gateway = await rawHttpGateway(NEVER_PORT, { maxSessionsPerClient: 1 });
    try {
      const { sessionId } = await openSession(gateway.url);
      assert.ok(sessionId);
      const pong = await inSession(gateway.url, sessionId, { jsonrpc: "2.0", id: 1, method: "ping" });
      assert.deepEqual(pong.json, { jsonrpc: "2.0", id: 1, result: {} });
      assert.equal((await inSession(gateway.url, sessionId, undefined, "DELETE")).status, 200);
      assert.equal(
        (await inSession(gateway.url, sessionId, { jsonrpc: "2.0", id: 2, method: "ping" })).status,
        404,
      );
      assert.equal((await openSession(gateway.url)).exchange.status, 200);
    } finally {
      await gateway.close();
    }
  });

  it("refuses Origin: null with 403 and opens no session", async () => {
    const gateway = await rawHttpGateway(NEVER_PORT);
    try {
      const refused = await openSession(gateway.url, { headers: { origin: "null" } });
      assert.equal(refused.exchange.status, 403);
      assert.equal(codeOf(refused.exchange.json), "mcp-http.origin-refused");
      assert.equal(refused.sessionId, undefined);
    } finally {
      await gateway.close();
    }
  });

  it("will not serve a host that is not loopback without a token, nor with a guessable one", async () => {
    const listen = { host: "0.0.0.0", port: 0 };
    await assert.rejects(rawHttpGateway(NEVER_PORT, { listen, allowRemote: true }), (error: unknown) => {
      assert.ok(error instanceof HttpGatewayRefusal);
      assert.match(error.message, /needs a token \(--token-file\)/);
      return true;
    });
    await assert.rejects(
      rawHttpGateway(NEVER_PORT, { listen, allowRemote: true, bearerToken: "short" }),
      /16 to 1024 characters/,
    );
  });

  it("with a token, a request without it gets 401 and one with it opens a session", async () => {
    const token = "a-token-of-thirty-two-characters";
    const gateway = await rawHttpGateway(NEVER_PORT, { bearerToken: token });
    try {
      const refused = await openSession(gateway.url);
      assert.equal(refused.exchange.status, 401);
      assert.equal(codeOf(refused.exchange.json), "mcp-http.token-required");
      const opened = await openSession(gateway.url, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(opened.exchange.status, 200);
    } finally {
      await gateway.close();
    }
  });

  it("the session id the store keeps cannot use or delete the session; only its secret Mcp-Session-Id can", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const gateway = await rawHttpGateway(port);
          try {
            const { sessionId } = await openSession(gateway.url);
            assert.ok(sessionId);
            const call = {
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: "echo", arguments: {} },
            };
            const answered = await inSession(gateway.url, sessionId, call);
            assert.equal((answered.json as { result?: { isError?: boolean } }).result?.isError, undefined);
            const [action] = await store.listToolActions({});
            assert.ok(action);
            // What anyone who reads the store learns: the session part of the tool_call_id.
            const stored = /^mcp:([^:]+):/.exec(action.toolCallId)?.[1];
            assert.ok(stored);
            assert.notEqual(stored, sessionId);
            assert.equal(action.toolCallId, toolCallIdFor(stored, 1));
            const deleted = await inSession(gateway.url, stored, undefined, "DELETE");
            assert.equal(deleted.status, 404, "the stored id deletes nothing");
            assert.equal(
              (await inSession(gateway.url, stored, { jsonrpc: "2.0", id: 2, method: "ping" })).status,
              404,
            );
            const pong = await inSession(gateway.url, sessionId, { jsonrpc: "2.0", id: 3, method: "ping" });
            assert.equal(pong.status, 200, "the session is still there");
            assert.equal((await inSession(gateway.url, sessionId, undefined, "DELETE")).status, 200);
          } finally {
            await gateway.close();
          }
        },
      },
      async () => undefined,
    );
  });

  it("a request id retried while the first POST is in flight: both POSTs get the same answer, the upstream runs once", async () => {
    // `stall` never answers, so the call is in flight until the gateway's timeout reports it unknown.
    await inOpenSession(1_500, async (gateway, sessionId, store) => {
      const call = stallCall(7);
      const [first, retry] = await Promise.all([
        inSession(gateway.url, sessionId, call),
        inSession(gateway.url, sessionId, call),
      ]);
      assert.equal(first.status, 200);
      assert.equal(retry.status, 200);
      assert.deepEqual(retry.json, first.json, "the retry gets the first call's answer");
      const result = (first.json as { result?: { _meta?: Record<string, unknown> } }).result;
      assert.equal(result?._meta?.["raes/code"], "upstream_timeout");
      const actions = await store.listToolActions({});
      assert.equal(actions.length, 1, "one tool action");
      assert.equal(actions[0]?.settlement, "indeterminate");
    });
  });

  it("a body over 4 MiB is answered 413 even while the client is still sending it", async () => {
    const gateway = await rawHttpGateway(NEVER_PORT);
    try {
      const { sessionId } = await openSession(gateway.url);
      assert.ok(sessionId);
      const big = { jsonrpc: "2.0", id: 1, method: "ping", params: { x: "é".repeat(4_500_000) } };
      const refused = await inSession(gateway.url, sessionId, big);
      assert.equal(refused.status, 413);
      assert.equal(codeOf(refused.json), "mcp-http.body-too-large");
      const pong = await inSession(gateway.url, sessionId, { jsonrpc: "2.0", id: 2, method: "ping" });
      assert.equal(pong.status, 200, "the session goes on");
    } finally {
      await gateway.close();
    }
  });

  it("a POST whose client goes away mid-body is dropped, and the session goes on", async () => {
    const logged: string[] = [];
    const gateway = await rawHttpGateway(NEVER_PORT, { log: (line) => logged.push(line) });
    try {
      const { sessionId } = await openSession(gateway.url);
      assert.ok(sessionId);
      const url = new URL(gateway.url);
      // Announces 1000 bytes, sends 10, then closes its socket.
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => {
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
              `Accept: application/json, text/event-stream\r\nMcp-Session-Id: ${sessionId}\r\n` +
              `Content-Length: 1000\r\n\r\n{"jsonrpc"`,
            () => setTimeout(() => socket.destroy(), 50),
          );
        });
        socket.on("close", () => resolve());
        socket.on("error", reject);
      });
      // The read of the cut body ended (it does not wait forever), and nothing of it reached MCP.
      await until(async () => logged.some((line) => line.startsWith("HTTP request failed")));
      const pong = await inSession(gateway.url, sessionId, { jsonrpc: "2.0", id: 2, method: "ping" });
      assert.equal(pong.status, 200, "the session goes on");
    } finally {
      await gateway.close();
    }
  });

  it("an initialize with malformed params is answered -32602 and opens no session", async () => {
    const gateway = await rawHttpGateway(NEVER_PORT, { maxSessionsPerClient: 1 });
    try {
      const bad = await send(gateway.url, {
        body: { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: 5 } },
      });
      assert.equal(bad.status, 200);
      assert.equal((bad.json as { error?: { code?: number } }).error?.code, -32602);
      assert.equal(bad.headers["mcp-session-id"], undefined);
      assert.equal(
        (await openSession(gateway.url)).exchange.status,
        200,
        "the refused initialize took no place",
      );
    } finally {
      await gateway.close();
    }
  });
});

describe("HTTP gateway sessions that end with requests open", () => {
  it("a POST in flight when its session is deleted is answered 404, not left open", async () => {
    await inOpenSession(60_000, async (gateway, sessionId, store) => {
      const inFlight = inSession(gateway.url, sessionId, stallCall(1));
      await until(async () => (await store.listToolActions({})).length === 1);
      assert.equal((await inSession(gateway.url, sessionId, undefined, "DELETE")).status, 200);
      const answered = await inFlight;
      assert.equal(answered.status, 404);
      assert.equal(codeOf(answered.json), "mcp-http.session-unknown");
    });
  });
});

describe("HTTP gateway session memory", () => {
  it("keeps nothing of a POST once it is answered (the SDK's JSON mode would keep every one)", async () => {
    const transports: StreamableHTTPServerTransport[] = [];
    const handle = StreamableHTTPServerTransport.prototype.handleRequest;
    StreamableHTTPServerTransport.prototype.handleRequest = function (
      this: StreamableHTTPServerTransport,
      ...rest
    ) {
      if (!transports.includes(this)) transports.push(this);
      return handle.apply(this, rest);
    };
    const gateway = await rawHttpGateway(NEVER_PORT);
    try {
      const { sessionId } = await openSession(gateway.url);
      assert.ok(sessionId);
      for (let round = 0; round < 5; round += 1)
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            inSession(gateway.url, sessionId, { jsonrpc: "2.0", id: round * 20 + i, method: "ping" }),
          ),
        );
      const [transport] = transports;
      const streams = (
        transport as unknown as { _webStandardTransport: { _streamMapping: Map<unknown, unknown> } }
      )._webStandardTransport._streamMapping;
      assert.ok(streams instanceof Map, "the SDK keeps its streams where the gateway prunes them");
      assert.equal(streams.size, 0, "no answered POST is kept");
    } finally {
      StreamableHTTPServerTransport.prototype.handleRequest = handle;
      await gateway.close();
    }
  });
});
