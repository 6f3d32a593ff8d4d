import assert from "node:assert/strict";
import { it } from "node:test";
import type { ControlPlaneStore } from "../../src/index.js";
import { aroundStoreMethod } from "../helpers/faulty-store.js";
import { assertSettledStillRunning, oneInvocation } from "../port/support/invocation.js";
import { withRawGateway } from "./fixtures/raw-gateway.js";

/** A store whose tool-action insert waits until `release` is called, so a cancel lands mid-write. */
function heldInsert(store: ControlPlaneStore, started: () => void, gate: Promise<void>): ControlPlaneStore {
  return aroundStoreMethod(store, "insertToolAction", async (_args, call) => {
    started();
    await gate;
    return call();
  });
}

it("a client cancel during the combined admit+dispatch write settles failed, not indeterminate, and the upstream never runs", async () => {
  let release = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let inserting = () => {};
  const insertStarted = new Promise<void>((r) => {
    inserting = r;
  });
  await oneInvocation(
    {
      wrapStore: (store) => heldInsert(store, inserting, gate),
      body: async (port) => {
        await withRawGateway(port, async (calls) => {
          const ac = new AbortController();
          const answer = calls.handle({
            name: "echo",
            arguments: undefined,
            requestId: 1,
            signal: ac.signal,
          });
          await insertStarted;
          ac.abort();
          release();
          const meta = (await answer)._meta ?? {};
          assert.equal(meta["raes/code"], "cancelled_by_client");
          assert.equal(meta["raes/settlement"], "failed");
          assert.equal(JSON.stringify(meta).includes("indeterminate"), false);
        });
      },
    },
    (closed) => assertSettledStillRunning(closed, ["failed"]),
  );
});
