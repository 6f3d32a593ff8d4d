import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { serveRemoteCall } from "../../../src/port/bridge/remote.js";
import { codeOf, requestFor } from "../../helpers/tool-requests.js";
import { oneInvocation } from "../support/invocation.js";

describe("edges of the request shape and the wire protocol", () => {
  it("a well-typed generation that is not the port's is generation_mismatch (rule 3b), not request_invalid", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          for (const generation of [0, -1, port.executionGeneration + 1]) {
            assert.equal(
              codeOf(
                await port.admit(requestFor(port, `g${generation}`, { executionGeneration: generation })),
              ),
              "generation_mismatch",
            );
          }
          assert.equal(
            codeOf(await port.admit(requestFor(port, "g-float", { executionGeneration: 1.5 }))),
            "request_invalid",
          );
        },
      },
      async () => undefined,
    );
  });

  it("a malformed wire call is refused in the answer shape of the method it meant", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          assert.deepEqual(await serveRemoteCall(port, { id: 1, method: "admit", args: [1, 2, 3] }), {
            id: 1,
            result: { admitted: false, refusal: "request_invalid" },
          });
          assert.deepEqual(await serveRemoteCall(port, { id: 2, method: "dispatch", args: "x" }), {
            id: 2,
            result: { accepted: false, refusal: "request_invalid" },
          });
          assert.deepEqual(await serveRemoteCall(port, { id: 3, method: "drop_tables", args: [] }), {
            id: 3,
            result: { ok: false, refusal: "request_invalid" },
          });
          assert.equal(await serveRemoteCall(port, { method: "admit", args: [] }), undefined);
        },
      },
      async () => undefined,
    );
  });
});
