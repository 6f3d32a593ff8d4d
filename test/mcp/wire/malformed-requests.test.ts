import assert from "node:assert/strict";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { startGateway } from "../../../src/mcp/index.js";
import { checkBody, checkMessage, STDIO_BATCH_REFUSED } from "../../../src/mcp/wire/index.js";
import { childNodeArgs } from "../../helpers/compiled/index.js";
import { ROOT } from "../../helpers/example.js";
import { inSession, NEVER_PORT, openSession, rawHttpGateway } from "../fixtures/http-client.js";
import { rawMap } from "../fixtures/raw-map.js";

const RAW = join(ROOT, "test", "mcp", "fixtures", "raw-upstream.ts");

/** Requests the SDK alone answers −32603 with raw zod issues, or not at all. */
const MALFORMED: readonly [string, Record<string, unknown>][] = [
  ["tools/call with a number for name", { method: "tools/call", params: { name: 5, arguments: {} } }],
  [
    "tools/call with a string for arguments",
    { method: "tools/call", params: { name: "echo", arguments: "x" } },
  ],
  [
    "tools/call with an array for arguments",
    { method: "tools/call", params: { name: "echo", arguments: [1] } },
  ],
  ["tools/call without a name", { method: "tools/call", params: { arguments: {} } }],
  ["params: null", { method: "tools/call", params: null }],
  ['params: "x"', { method: "ping", params: "x" }],
  ['_meta: "x"', { method: "tools/call", params: { name: "echo", _meta: "x" } }],
  ["progressToken: {}", { method: "tools/call", params: { name: "echo", _meta: { progressToken: {} } } }],
  ["tools/list with a number for cursor", { method: "tools/list", params: { cursor: 5 } }],
];

function assertInvalidParams(answer: unknown, id: number, what: string): void {
  const { error, id: answeredId } = answer as { id?: unknown; error?: { code?: number; message?: string } };
  assert.equal(answeredId, id, `${what}: answered with its id`);
  assert.equal(error?.code, -32602, `${what}: -32602`);
  const message = error?.message ?? "";
  assert.match(message, /^Invalid params: /, what);
  assert.ok(message.length <= 200, `${what}: a short message, not ${message.length} characters`);
  assert.ok(!message.includes('"code"'), `${what}: no raw zod issues in ${message}`);
}

describe("malformed requests get -32602 with a short message", () => {
  it("over stdio: each is answered, and the gateway goes on answering", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = "";
    output.setEncoding("utf8").on("data", (chunk: string) => {
      written += chunk;
    });
    const gateway = await startGateway({
      port: NEVER_PORT,
      map: rawMap(),
      upstream: {
        command: process.execPath,
        args: childNodeArgs(RAW),
        env: { PATH: process.env.PATH ?? "" },
      },
      timeoutMs: 10_000,
      input,
      output,
    });
    const answers = () =>
      written
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id?: unknown });
    /** Sends a ping after `text`; once it is answered, every line before it was read and answered. */
    const exchange = async (text: string) => {
      const marker = `sync-${answers().length}`;
      input.write(`${text}\n{"jsonrpc":"2.0","id":"${marker}","method":"ping"}\n`);
      while (!answers().some((a) => a.id === marker)) await new Promise((resolve) => setImmediate(resolve));
      return answers().filter((a) => a.id !== marker && !String(a.id).startsWith("sync-"));
    };
    try {
      for (const [n, [what, request]] of MALFORMED.entries()) {
        const before = (await exchange("")).length;
        const after = await exchange(JSON.stringify({ jsonrpc: "2.0", id: 100 + n, ...request }));
        assert.equal(after.length, before + 1, `${what}: exactly one answer`);
        assertInvalidParams(after.at(-1), 100 + n, what);
      }
      const garbage = await exchange("{not json");
      assert.deepEqual(garbage.at(-1), {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error: not JSON" },
      });
      // MCP 2025-06-18 removed batches; stdio refuses one whole, saying so, and runs nothing of it.
      const batch = await exchange('[{"jsonrpc":"2.0","id":8,"method":"ping"}]');
      assert.deepEqual(batch.at(-1), {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: STDIO_BATCH_REFUSED },
      });
      assert.ok(!batch.some((a) => a.id === 8), "nothing in the batch was run");
    } finally {
      input.end();
      await gateway.closed;
    }
  });

  it("over HTTP: each is answered 200 with its JSON-RPC error", async () => {
    const gateway = await rawHttpGateway(NEVER_PORT);
    try {
      const { sessionId } = await openSession(gateway.url);
      assert.ok(sessionId);
      for (const [n, [what, request]] of MALFORMED.entries()) {
        const answer = await inSession(gateway.url, sessionId, { jsonrpc: "2.0", id: 100 + n, ...request });
        assert.equal(answer.status, 200, what);
        assertInvalidParams(answer.json, 100 + n, what);
      }
    } finally {
      await gateway.close();
    }
  });
});

describe("a batch over HTTP is answered with an array, as JSON-RPC 2.0 requires", () => {
  it("a batch of one request, run or refused, and a batch of two: each answer is an array", async () => {
    const gateway = await rawHttpGateway(NEVER_PORT);
    try {
      const { sessionId } = await openSession(gateway.url);
      assert.ok(sessionId);
      const one = await inSession(gateway.url, sessionId, [{ jsonrpc: "2.0", id: 8, method: "ping" }]);
      assert.equal(one.status, 200, one.text);
      assert.deepEqual(one.json, [{ jsonrpc: "2.0", id: 8, result: {} }]);
      assert.equal(Number(one.headers["content-length"]), Buffer.byteLength(one.text));
      const two = await inSession(gateway.url, sessionId, [
        { jsonrpc: "2.0", id: 9, method: "ping" },
        { jsonrpc: "2.0", id: 10, method: "ping" },
      ]);
      assert.deepEqual(
        (two.json as { id: number }[]).map((a) => a.id).sort((a, b) => a - b),
        [9, 10],
      );
      const refused = await inSession(gateway.url, sessionId, [
        { jsonrpc: "2.0", id: 11, method: "ping", params: null },
      ]);
      assert.ok(Array.isArray(refused.json), refused.text);
      assert.deepEqual(
        (refused.json as { id: number; error: { code: number } }[]).map((a) => [a.id, a.error.code]),
        [[11, -32602]],
      );
      const single = await inSession(gateway.url, sessionId, { jsonrpc: "2.0", id: 12, method: "ping" });
      assert.deepEqual(single.json, { jsonrpc: "2.0", id: 12, result: {} });
    } finally {
      await gateway.close();
    }
  });
});

describe("checkMessage and checkBody", () => {
  it("answers a request whose id cannot be read -32600 with id null, and never a notification or a response", () => {
    assert.deepEqual(checkMessage({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }), {
      kind: "answer",
      answer: {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid Request: id must be a string or an integer" },
      },
    });
    assert.equal(checkMessage([1]).kind, "answer");
    assert.equal(
      checkMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: null }).kind,
      "ignored",
    );
    assert.equal(checkMessage({ jsonrpc: "2.0", id: 3, result: "not an object" }).kind, "ignored");
    const unknownKey = checkMessage({ jsonrpc: "2.0", id: 4, method: "ping", extra: 1 });
    assert.equal(unknownKey.kind === "answer" && unknownKey.answer.error.code, -32600);
    const wrongVersion = checkMessage({ jsonrpc: "1.0", id: 5, method: "ping" });
    assert.equal(wrongVersion.kind === "answer" && wrongVersion.answer.id, 5);
  });

  it("runs nothing of a batch with a malformed member or a repeated id, and answers each of its requests", () => {
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    assert.equal(checkBody([ping(1), ping(2)]).kind, "messages");
    const repeated = checkBody([ping(1), ping(1)]);
    assert.ok(repeated.kind === "answered");
    assert.deepEqual(
      repeated.answers.map((a) => [a.id, a.error.code]),
      [
        [1, -32600],
        [1, -32600],
      ],
    );
    const mixed = checkBody([ping(1), { jsonrpc: "2.0", id: 2, method: "ping", params: null }]);
    assert.ok(mixed.kind === "answered");
    assert.deepEqual(
      mixed.answers.map((a) => [a.id, a.error.code]),
      [
        [1, -32600],
        [2, -32602],
      ],
    );
    assert.equal(mixed.status, 200);
    const empty = checkBody([]);
    assert.ok(empty.kind === "answered" && empty.status === 400);
  });
});
