import assert from "node:assert/strict";
import { Agent } from "node:http";
import { after, describe, it } from "node:test";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { GatewayErrorCode, META_CODE } from "../../src/mcp/index.js";
import { ParticipantToolActionRefusal } from "../../src/port/index.js";
import { fullRun, fuzzInputsPerTarget, processFigures, reportProgress } from "../helpers/fuzz-budget.js";
import { manifestWithTimeout } from "../helpers/live-model.js";
import { type Exchange, openSession, rawHttpGateway, send } from "../mcp/fixtures/http-client.js";
import { oneInvocation } from "../port/support/invocation.js";
import { FamilyTally } from "./arbitraries.js";
import { expectsAnswer, FAMILIES, frame } from "./gateway-frames.js";

/** 20 000 POSTs in CI, RAES_FUZZ_INPUTS for a long run (see docs/hardening.md). */
const FRAMES = fuzzInputsPerTarget();
/** Generous: about 30 ms per POST, so a loaded machine does not cut a long run short. */
const TIMEOUT = Math.max(10 * 60_000, FRAMES * 30);
/** POSTs in flight at once, on one session. */
const BATCH = 40;
const RPC_CODES = new Set<unknown>(Object.values(ErrorCode));
const TOOL_CODES = new Set<unknown>([
  ...Object.values(GatewayErrorCode),
  ...Object.values(ParticipantToolActionRefusal),
]);
/** What a POST may be answered with: an answer (200), notifications taken (202), a refusal or a bad body. */
const STATUSES = new Set([200, 202, 400, 413]);

const codes = new FamilyTally();

/** Checks one HTTP answer: a fixed status and, when it has a body, JSON-RPC answers with fixed codes. */
function checkExchange(text: string, exchange: Exchange): void {
  assert.ok(STATUSES.has(exchange.status), `status ${exchange.status} for ${text.slice(0, 80)}`);
  codes.add(`http ${exchange.status}`);
  if (exchange.status === 202) {
    assert.equal(exchange.text, "");
    // A single request is always answered; only notifications and responses are taken silently.
    if (!text.trimStart().startsWith("["))
      assert.ok(!expectsAnswer(text), `no answer to ${text.slice(0, 80)}`);
    return;
  }
  assert.notEqual(exchange.json, undefined, `a JSON body for ${text.slice(0, 80)}`);
  const answers = Array.isArray(exchange.json) ? exchange.json : [exchange.json];
  for (const answer of answers as { jsonrpc?: unknown; error?: { code?: unknown }; result?: unknown }[]) {
    assert.equal(answer.jsonrpc, "2.0");
    if (answer.error !== undefined) {
      codes.add(`rpc ${String(answer.error.code)}`);
      assert.ok(RPC_CODES.has(answer.error.code), `error code ${String(answer.error.code)}`);
      continue;
    }
    const code = (answer.result as { _meta?: Record<string, unknown> } | undefined)?._meta?.[META_CODE];
    codes.add(code === undefined ? "result" : String(code));
    if (code !== undefined) assert.ok(TOOL_CODES.has(code), `tool result code ${String(code)}`);
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on("unhandledRejection", onUnhandled);
after(() => process.off("unhandledRejection", onUnhandled));

describe(`HTTP gateway fuzz (${FRAMES} POSTs through the SDK's Streamable HTTP transport)`, () => {
  it("answers every POST with a fixed status and code, never crashes, and still shuts down cleanly", {
    timeout: TIMEOUT,
  }, async (t) => {
    const tally = new FamilyTally();
    const started = performance.now();
    const rss = process.memoryUsage().rss;
    const cpu = process.cpuUsage();
    const figures = () =>
      `inputs ${tally.inputs}; answers: ${codes.summary()}; families: ${tally.summary()}; ${processFigures(started, rss, cpu)}`;
    // A connection per POST: a kept-alive socket the server closes after its 5 s idle timeout while
    // the client reuses it is a reset on the client's side, not the gateway's answer.
    const agent = new Agent({ keepAlive: false, maxSockets: BATCH });
    await oneInvocation(
      {
        manifest: manifestWithTimeout(Math.ceil(TIMEOUT / 1000)),
        body: async (port) => {
          const gateway = await rawHttpGateway(port);
          try {
            const { sessionId } = await openSession(gateway.url);
            assert.ok(sessionId);
            const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" };
            await fc.assert(
              fc.asyncProperty(fc.array(frame, { minLength: BATCH, maxLength: BATCH }), async (frames) => {
                await Promise.all(
                  frames.map(async ({ family, input: text }) => {
                    tally.note(family, text);
                    checkExchange(text, await send(gateway.url, { body: text, headers, agent }));
                  }),
                );
                reportProgress(tally.inputs, () => `gateway-http: ${figures()}`);
              }),
              { numRuns: Math.ceil(FRAMES / BATCH), endOnFailure: true },
            );
            // The session survived every frame.
            const pong = await send(gateway.url, {
              body: { jsonrpc: "2.0", id: "last", method: "ping" },
              headers,
            });
            assert.deepEqual(pong.json, { jsonrpc: "2.0", id: "last", result: {} });
          } finally {
            agent.destroy();
            await gateway.close();
          }
        },
      },
      async () => undefined,
    );
    t.diagnostic(`gateway-http: ${figures()}`);
    assert.ok(tally.inputs >= FRAMES, `${tally.inputs} POSTs were sent`);
    if (fullRun(tally.inputs)) assert.deepEqual(tally.missing(FAMILIES), [], "every family was drawn");
    assert.deepEqual(unhandled, []);
  });
});
