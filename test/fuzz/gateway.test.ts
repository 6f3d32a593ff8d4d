import assert from "node:assert/strict";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { after, describe, it } from "node:test";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { GatewayErrorCode, META_CODE, startGateway } from "../../src/mcp/index.js";
import { ParticipantToolActionRefusal } from "../../src/port/index.js";
import { childNodeArgs } from "../helpers/compiled/index.js";
import { ROOT } from "../helpers/example.js";
import { fullRun, fuzzInputsPerTarget, processFigures, reportProgress } from "../helpers/fuzz-budget.js";
import { manifestWithTimeout } from "../helpers/live-model.js";
import { rawMap } from "../mcp/fixtures/raw-map.js";
import { oneInvocation } from "../port/support/invocation.js";
import { FamilyTally } from "./arbitraries.js";
import { expectsAnswer, FAMILIES, frame } from "./gateway-frames.js";

/** 20 000 frames in CI, RAES_FUZZ_INPUTS for a long run (see docs/hardening.md). */
const FRAMES = fuzzInputsPerTarget();
/** Generous: about 30 ms per frame, so a loaded machine does not cut a long run short. */
const TIMEOUT = Math.max(10 * 60_000, FRAMES * 30);
const BATCH = 40;
const RAW = join(ROOT, "test", "mcp", "fixtures", "raw-upstream.ts");
const RPC_CODES = new Set<unknown>(Object.values(ErrorCode));
const TOOL_CODES = new Set<unknown>([
  ...Object.values(GatewayErrorCode),
  ...Object.values(ParticipantToolActionRefusal),
]);

let answers = 0;
/** The answers the gateway owes: one per frame `expectsAnswer` names, one per sync ping. */
let owed = 0;
/** The distinct answers seen: a JSON-RPC error code, a tool result's code, or a plain result. */
const codes = new FamilyTally();

function answerCode(line: string): string {
  const answer = JSON.parse(line) as {
    error?: { code?: unknown };
    result?: { _meta?: Record<string, unknown> };
  };
  if (answer.error !== undefined) return `rpc ${String(answer.error.code)}`;
  const code = answer.result?._meta?.[META_CODE];
  return code === undefined ? "result" : String(code);
}

/** Checks one line the gateway wrote: a JSON-RPC answer with a fixed code, or a tool result. */
function checkAnswer(line: string): void {
  answers += 1;
  codes.add(answerCode(line));
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
  it("answers every request exactly once with a fixed code, never crashes, and still shuts down cleanly", {
    timeout: TIMEOUT,
  }, async (t) => {
    const tally = new FamilyTally();
    const started = performance.now();
    const rss = process.memoryUsage().rss;
    const cpu = process.cpuUsage();
    const figures = () =>
      `inputs ${tally.inputs}; answers ${answers} of ${owed} owed; codes: ${codes.summary()}; families: ${tally.summary()}; ${processFigures(started, rss, cpu)}`;
    await oneInvocation(
      {
        // The example offer's 30 s timeout would end the invocation, and so the run, after 30 s.
        manifest: manifestWithTimeout(Math.ceil(TIMEOUT / 1000)),
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
              args: childNodeArgs(RAW),
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
            owed += 1;
            input.write(`{"jsonrpc":"2.0","id":"raes-sync-${sync}","method":"ping"}\n`);
            while (!written.includes(marker)) await new Promise((resolve) => setImmediate(resolve));
            // Only what is not yet checked is kept, so a long run does not rescan its whole output.
            const lines = written.split("\n");
            written = lines.pop() ?? "";
            for (const line of lines) if (line) checkAnswer(line);
          };
          await fc.assert(
            fc.asyncProperty(fc.array(frame, { minLength: BATCH, maxLength: BATCH }), async (frames) => {
              for (const { family, input: text } of frames) {
                tally.note(family, text);
                const line = text.replaceAll("\n", " ");
                if (expectsAnswer(line)) owed += 1;
                input.write(`${line}\n`);
              }
              await settle();
              reportProgress(tally.inputs, () => `gateway: ${figures()}`);
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
    t.diagnostic(`gateway: ${figures()}`);
    assert.ok(tally.inputs >= FRAMES, `${tally.inputs} frames were sent`);
    assert.equal(answers, owed, "every request got exactly one answer");
    if (fullRun(tally.inputs)) assert.deepEqual(tally.missing(FAMILIES), [], "every family was drawn");
    assert.deepEqual(unhandled, []);
  });
});
