import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ControlPlaneStore } from "../../src/index.js";
import type { GovernedCalls } from "../../src/mcp/index.js";
import { exampleManifest } from "../helpers/example.js";
import { aroundStoreMethod, isSettleWrite } from "../helpers/faulty-store.js";
import { assertSettledStillRunning, oneInvocation } from "../port/support/invocation.js";
import { withRawGateway } from "./fixtures/raw-gateway.js";

/** A store whose settling writes wait until `release` is called; every other write goes through. */
function heldSettles(store: ControlPlaneStore, gate: Promise<void>, started: () => void): ControlPlaneStore {
  return aroundStoreMethod(store, "updateToolAction", async (args, call) => {
    if (isSettleWrite(args)) {
      started();
      await gate;
    }
    return call();
  });
}

/** One deferred: a promise and its resolver. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Lets `n` turns of the event loop pass: whatever only needed microtasks has happened by then. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

const signal = () => new AbortController().signal;

describe("the outcome is recorded behind the answer", () => {
  it("answers the client while the settle commit is still held, and drain waits for that commit", async () => {
    const gate = deferred();
    const settling = deferred();
    let drained = false;
    const heldCall = async (calls: GovernedCalls) => {
      let answered = false;
      const answer = calls
        .handle({ name: "echo", arguments: undefined, requestId: 1, signal: signal() })
        .then((result) => {
          answered = true;
          return result;
        });
      // The outcome has reached the store and is held there, uncommitted: the answer is out anyway.
      await settling.promise;
      await turns(5);
      assert.equal(answered, true, "the client must not wait for the settle commit");
      assert.notEqual((await answer).isError, true);
      const drain = calls.drain().then(() => {
        drained = true;
      });
      await turns(5);
      assert.equal(drained, false, "drain must wait for the held settle");
      gate.resolve();
      await drain;
    };
    await oneInvocation(
      {
        wrapStore: (store) => heldSettles(store, gate.promise, settling.resolve),
        body: (port) =>
          withRawGateway(port, async (calls) => {
            // Released at the end in any case, so a failed check cannot leave the invocation hanging.
            try {
              await heldCall(calls);
            } finally {
              gate.resolve();
            }
          }),
      },
      (closed) => assertSettledStillRunning(closed, ["succeeded"]),
    );
  });

  it("with the port in process (host mode), answers before the settle reaches the store; drain waits for it", async () => {
    // The order the two happen in: the settle's store write, and the client's answer.
    const seen: string[] = [];
    const order = (store: ControlPlaneStore) =>
      aroundStoreMethod(store, "updateToolAction", async (args, call) => {
        if (isSettleWrite(args)) seen.push("settle write");
        return call();
      });
    for (const afterAnswer of [false, true]) {
      seen.length = 0;
      await oneInvocation(
        {
          wrapStore: order,
          body: (port) =>
            withRawGateway(
              port,
              async (calls) => {
                const result = await calls.handle({
                  name: "echo",
                  arguments: undefined,
                  requestId: 1,
                  signal: signal(),
                });
                seen.push("answer");
                assert.notEqual(result.isError, true);
                await calls.drain();
                seen.push("drained");
              },
              undefined,
              afterAnswer,
            ),
        },
        (closed) => assertSettledStillRunning(closed, ["succeeded"]),
      );
      assert.deepEqual(
        seen,
        afterAnswer ? ["answer", "settle write", "drained"] : ["settle write", "answer", "drained"],
        `settleAfterAnswer ${afterAnswer}`,
      );
    }
  });

  it("with the port in process, sequential calls at a concurrency limit of 1 are all admitted", async () => {
    const manifest = exampleManifest();
    manifest.participant_runtime.invocation_tool_actions.max_concurrent_tool_actions_per_invocation = 1;
    await oneInvocation(
      {
        manifest,
        body: (port) =>
          withRawGateway(
            port,
            async (calls) => {
              for (let id = 1; id <= 4; id += 1) {
                const result = await calls.handle({
                  name: "echo",
                  arguments: undefined,
                  requestId: id,
                  signal: signal(),
                });
                assert.notEqual(result._meta?.["raes/code"], "concurrency_limit_exhausted");
                // A client's next request arrives on a later turn of the event loop than its answer.
                await new Promise((resolve) => setImmediate(resolve));
              }
            },
            undefined,
            true,
          ),
      },
      (closed) => assertSettledStillRunning(closed, ["succeeded", "succeeded", "succeeded", "succeeded"]),
    );
  });

  it("issues the settle before answering: sequential calls at a concurrency limit of 1 are all admitted", async () => {
    const manifest = exampleManifest();
    manifest.participant_runtime.invocation_tool_actions.max_concurrent_tool_actions_per_invocation = 1;
    await oneInvocation(
      {
        manifest,
        body: (port) =>
          withRawGateway(port, async (calls) => {
            for (let id = 1; id <= 4; id += 1) {
              // rpc_error is answered failed behind its answer too.
              const name = id === 3 ? "rpc_error" : "echo";
              const result = await calls
                .handle({ name, arguments: undefined, requestId: id, signal: signal() })
                .catch(() => undefined);
              assert.notEqual(result?._meta?.["raes/code"], "concurrency_limit_exhausted");
            }
          }),
      },
      async ({ store, invocationId }) => {
        const actions = await store.listToolActions({ invocationId });
        assert.deepEqual(
          actions.map((a) => a.settlement),
          ["succeeded", "succeeded", "failed", "succeeded"],
        );
      },
    );
  });
});
