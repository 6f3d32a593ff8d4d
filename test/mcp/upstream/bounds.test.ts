import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Upstream, UpstreamError, UpstreamErrorCode } from "../../../src/mcp/index.js";

/**
 * A node upstream given as `-e` source: `reply(message)` writes one line to stdout, and `onRequest`
 * is called with every request the gateway's client sends.
 */
function upstream(onRequest: string, env: Record<string, string> = {}) {
  const source = `
    const { writeSync, writeFileSync } = require("node:fs");
    const reply = (message) => writeSync(1, JSON.stringify(message) + "\\n");
    const handle = ${onRequest};
    require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
      const message = JSON.parse(line);
      if (message.id !== undefined) handle(message);
    });
  `;
  return { command: process.execPath, args: ["-e", source], env: { PATH: process.env.PATH ?? "", ...env } };
}

const INITIALIZED = `{ protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "u", version: "1" } }`;

async function refusal(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => assert.fail("expected a refusal"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof UpstreamError, `not an UpstreamError: ${String(error).slice(0, 300)}`);
  return error;
}

describe("the gateway bounds what its upstream sends", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-upstream-bounds-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("an initialize answer of one 64 MiB line: refused as line-too-long, and no more than the bound is read", async () => {
    const written = join(dir, "written");
    // Writes synchronously, 1 MiB at a time, counting what the pipe took: once the gateway stops
    // reading, a write fails (EPIPE) and the count stops.
    const command = upstream(
      `(message) => {
        let total = 0;
        const head = '{"jsonrpc":"2.0","id":' + JSON.stringify(message.id) + ',"result":{"x":"';
        total += writeSync(1, head);
        const chunk = Buffer.alloc(1 << 20, 97);
        try {
          for (let i = 0; i < 64; i += 1) {
            total += writeSync(1, chunk);
            writeFileSync(${JSON.stringify(written)}, String(total));
          }
          writeSync(1, '"}}\\n');
        } catch {
          process.exit(0);
        }
      }`,
    );
    const error = await refusal(Upstream.start(command));
    assert.equal(error.code, UpstreamErrorCode.line_too_long);
    assert.match(error.message, /longer than 10485760 bytes/);
    const total = Number(readFileSync(written, "utf8"));
    // 10 MiB, the pipe's buffer and the chunk in flight; reading on to the end would be 64 MiB.
    assert.ok(total < 16 * (1 << 20), `${total} bytes written`);
  });

  it("an initialize answer that is not an initialize result: answer-invalid, with no schema dump", async () => {
    const command = upstream(`(message) => reply({ jsonrpc: "2.0", id: message.id, result: { x: "aaa" } })`);
    const error = await refusal(Upstream.start(command));
    assert.equal(error.code, UpstreamErrorCode.answer_invalid);
    assert.equal(error.message, "the upstream's answer to initialize is not what MCP specifies for it");
  });

  it("150 000 tools on one page: too-many-tools, not a stack overflow", async () => {
    const command = upstream(
      `(message) => {
        if (message.method === "initialize") return reply({ jsonrpc: "2.0", id: message.id, result: ${INITIALIZED} });
        const tools = Array.from({ length: 150000 }, (_, i) => ({ name: "t" + i, inputSchema: { type: "object" } }));
        reply({ jsonrpc: "2.0", id: message.id, result: { tools } });
      }`,
    );
    const started = await Upstream.start(command);
    try {
      const error = await refusal(started.listTools());
      assert.equal(error.code, UpstreamErrorCode.too_many_tools);
    } finally {
      await started.close();
    }
  });

  it("9 000 tools on three pages are all listed", async () => {
    const command = upstream(
      `(message) => {
        if (message.method === "initialize") return reply({ jsonrpc: "2.0", id: message.id, result: ${INITIALIZED} });
        const page = Number(message.params?.cursor ?? 0);
        const tools = Array.from({ length: 3000 }, (_, i) => ({ name: "t" + (page * 3000 + i), inputSchema: { type: "object" } }));
        reply({ jsonrpc: "2.0", id: message.id, result: { tools, ...(page < 2 ? { nextCursor: String(page + 1) } : {}) } });
      }`,
    );
    const started = await Upstream.start(command);
    try {
      const tools = await started.listTools();
      assert.equal(tools.length, 9_000);
      assert.equal(new Set(tools.map((t) => t.name)).size, 9_000);
    } finally {
      await started.close();
    }
  });
});
