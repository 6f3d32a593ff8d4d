import assert from "node:assert/strict";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { after, describe, it } from "node:test";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { GatewayErrorCode, META_CODE, startGateway } from "../../src/mcp/index.js";
import { ParticipantToolActionRefusal } from "../../src/port/index.js";
import { ROOT } from "../helpers/example.js";
import { rawMap } from "../mcp/fixtures/raw-map.js";
import { oneInvocation } from "../port/support/invocation.js";
import {
  anyJsonValue,
  anyString,
  deepJson,
  fuzzInputs,
  garbageBytes,
  PROTOTYPE_KEYS,
} from "./arbitraries.js";

/** 8 000 frames in CI; 40 % of a long run. */
const FRAMES = fuzzInputs(8_000, 0.4);
const BATCH = 40;
const RAW = join(ROOT, "test", "mcp", "fixtures", "raw-upstream.ts");
const RPC_CODES = new Set<unknown>(Object.values(ErrorCode));
const TOOL_CODES = new Set<unknown>([
  ...Object.values(GatewayErrorCode),
  ...Object.values(ParticipantToolActionRefusal),
]);

const id = fc.oneof(fc.integer(), fc.string({ maxLength: 12 }), anyJsonValue);
const method = fc.constantFrom(
  "tools/call",
  "tools/call",
  "tools/list",
  "ping",
  "initialize",
  "notifications/cancelled",
  "resources/list",
  ...PROTOTYPE_KEYS,
);
const toolName = fc.oneof(
  fc.constantFrom("echo", "result_null", "missing", ...PROTOTYPE_KEYS),
  anyString,
  anyJsonValue,
);
const args = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 6 })), anyJsonValue, {
    maxKeys: 3,
  }),
  anyJsonValue,
);

/** A JSON-RPC-shaped frame with any field of any type. */
const shaped = fc
  .record(
    {
      jsonrpc: fc.oneof(fc.constant("2.0"), anyJsonValue),
      id,
      method,
      params: fc.record({ name: toolName, arguments: args }, { requiredKeys: [] }),
    },
    { requiredKeys: ["method"] },
  )
  .map((frame) => JSON.stringify(frame));

/** A tools/call frame with a hostile nesting in its arguments, params, `_meta` or id. */
const deep = fc
  .tuple(deepJson, fc.constantFrom("arguments", "params", "meta", "id"), fc.integer())
  .map(([nested, where, n]) => {
    if (where === "arguments")
      return `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"echo","arguments":{"a":${nested}}}}`;
    if (where === "params") return `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":${nested}}`;
    if (where === "meta")
      return `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"echo","_meta":{"x":${nested}}}}`;
    return `{"jsonrpc":"2.0","id":${nested},"method":"ping"}`;
  });

/** A frame cut short, or with prototype keys at the top. */
const truncated = shaped.chain((text) => fc.nat({ max: text.length }).map((at) => text.slice(0, at)));
const prototype = fc
  .constantFrom(...PROTOTYPE_KEYS)
  .map(
    (key) =>
      `{"${key}":{"method":"tools/call"},"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","${key}":1,"arguments":{"${key}":{"${key}":1}}}}`,
  );

const frame = fc.oneof(
  { weight: 6, arbitrary: shaped },
  { weight: 2, arbitrary: deep },
  { weight: 2, arbitrary: truncated },
  { weight: 1, arbitrary: prototype },
  { weight: 2, arbitrary: garbageBytes },
  { weight: 1, arbitrary: anyString },
);

let answers = 0;

/** Checks one line the gateway wrote: a JSON-RPC answer with a fixed code, or a tool result. */
function checkAnswer(line: string): void {
  answers += 1;
  const answer = JSON.parse(line) as {
    jsonrpc?: unknown;
    error?: { code?: unknown };
    result?: Record<string, unknown>;
  };
  assert.equal(answer.jsonrpc, "2.0");
  if (answer.error !== undefined) {
    assert.ok(RPC_CODES.has(answer.error.code), `error code ${String(answer.error.code)}`);
    return;
  }
  const code = (answer.result?._meta as Record<string, unknown> | undefined)?.[META_CODE];
  if (code !== undefined) assert.ok(TOOL_CODES.has(code), `tool result code ${String(code)}`);
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on("unhandledRejection", onUnhandled);
after(() => process.off("unhandledRejection", onUnhandled));

describe(`gateway fuzz (${FRAMES} frames through real SDK stdio transports)`, () => {
  it("answers every frame it can with a fixed code, never crashes, and still shuts down cleanly", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const input = new PassThrough();
          const output = new PassThrough();
          let written = "";
          output.setEncoding("utf8").on("data", (chunk: string) => {
            written += chunk;
          });
          const gateway = await startGateway({
            port,
            map: rawMap(),
            upstream: {
              command: process.execPath,
              args: ["--import", "tsx", RAW],
              env: { PATH: process.env.PATH ?? "" },
            },
            timeoutMs: 10_000,
            input,
            output,
          });
          let sync = 0;
          /** Writes a ping after the frames and waits for its answer, so every frame before it was read. */
          const settle = async () => {
            sync += 1;
            const marker = `"id":"raes-sync-${sync}"`;
            input.write(`{"jsonrpc":"2.0","id":"raes-sync-${sync}","method":"ping"}\n`);
            while (!written.includes(marker)) await new Promise((resolve) => setImmediate(resolve));
            // Only what is not yet checked is kept, so a long run does not rescan its whole output.
            const lines = written.split("\n");
            written = lines.pop() ?? "";
            for (const line of lines) if (line) checkAnswer(line);
          };
          await fc.assert(
            fc.asyncProperty(fc.array(frame, { minLength: BATCH, maxLength: BATCH }), async (frames) => {
              for (const text of frames) input.write(`${text.replaceAll("\n", " ")}\n`);
              await settle();
            }),
            { numRuns: Math.ceil(FRAMES / BATCH), endOnFailure: true },
          );
          input.end();
          await gateway.closed;
          for (const line of written.split("\n")) if (line) checkAnswer(line);
        },
      },
      async () => undefined,
    );
    assert.ok(answers >= Math.ceil(FRAMES / BATCH), `${answers} answers were checked`);
    assert.deepEqual(unhandled, []);
  });
});
