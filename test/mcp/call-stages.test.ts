import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CallStages, stagesLine } from "../../src/mcp/index.js";
import { oneInvocation } from "../port/support/invocation.js";
import { withRawGateway } from "./fixtures/raw-gateway.js";

/** Runs the calls through a real GovernedCalls, port and raw upstream process; returns the stage reports. */
async function stagesOf(names: readonly string[]): Promise<{ stages: CallStages[]; settlements: string[] }> {
  const stages: CallStages[] = [];
  const { actions } = await oneInvocation(
    {
      body: async (port) => {
        await withRawGateway(
          port,
          async (calls) => {
            for (const [index, name] of names.entries()) {
              const signal = new AbortController().signal;
              await calls
                .handle({ name, arguments: undefined, requestId: index, signal })
                .catch(() => undefined);
            }
            // A retried request id is answered from the first decision: it never reaches the upstream.
            await calls.handle({
              name: names[0] ?? "echo",
              arguments: undefined,
              requestId: 0,
              signal: new AbortController().signal,
            });
          },
          (s) => stages.push(s),
        );
      },
    },
    async ({ store }) => ({ actions: await store.listToolActions({}) }),
  );
  return { stages, settlements: actions.map((a) => a.settlement ?? "") };
}

describe("stage times of governed calls (raes mcp-gateway --log-timings)", () => {
  it("reports each call that reached the upstream once, answered or not, and no refused or retried call", async () => {
    const { stages, settlements } = await stagesOf(["echo", "not_mapped", "result_null", "rpc_error"]);
    assert.deepEqual(settlements, ["succeeded", "indeterminate", "failed"]);
    assert.equal(stages.length, 3);
    for (const s of stages) {
      for (const value of [s.admit, s.dispatch, s.upstream, s.reply, s.settle]) assert.ok(value >= 0);
      // The stages tile the handler's time up to the answer: nothing between them goes uncounted.
      assert.ok(Math.abs(s.admit + s.dispatch + s.upstream + s.reply - s.total) < 1e-6);
    }
  });

  it("formats one log line with every stage in milliseconds", () => {
    assert.equal(
      stagesLine({ admit: 0.5, dispatch: 0.25, upstream: 1, reply: 0.125, settle: 0.5, total: 1.875 }),
      "timing admit=0.500 dispatch=0.250 upstream=1.000 reply=0.125 settle=0.500 total=1.875",
    );
  });
});
