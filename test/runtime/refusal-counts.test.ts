import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { oneToolCall, requestFor } from "../helpers/tool-requests.js";
import { oneInvocation } from "../port/support/invocation.js";

describe("refusal counts (docs/design.md §10)", () => {
  it("are counted per code in memory and committed with the invocation's close, adding no tool action", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          for (const toolCallId of ["bad-1", "bad-2"]) {
            const answer = await port.admit(
              requestFor(port, toolCallId, { targetAddresses: ["provision.node.elsewhere"] }),
            );
            assert.equal(answer.admitted, false);
          }
          assert.equal((await port.admit({ toolCallId: "x" } as never)).admitted, false);
          await oneToolCall(port, "good");
        },
      },
      async ({ store, invocationId }) => {
        const invocation = await store.getInvocation(invocationId);
        assert.deepEqual(invocation?.refusals, { request_invalid: 1, target_outside_binding: 2 });
        assert.deepEqual((await store.getOperation(invocationId))?.refusals, invocation?.refusals);
        assert.equal((await store.listToolActions({ invocationId })).length, 1);
      },
    );
  });

  it("are absent when nothing was refused", async () => {
    await oneInvocation(
      { body: async (port) => void (await oneToolCall(port, "good")) },
      async ({ store, invocationId }) => {
        assert.equal((await store.getInvocation(invocationId))?.refusals, undefined);
      },
    );
  });
});
