import assert from "node:assert/strict";
import { join } from "node:path";
import { it } from "node:test";
import type { ControlPlaneStore } from "../../src/index.js";
import { GovernedCalls, newSessionId, Upstream } from "../../src/mcp/index.js";
import { ROOT } from "../helpers/example.js";
import { oneInvocation } from "../port/support/invocation.js";
import { rawMap } from "./fixtures/raw-map.js";

const RAW = join(ROOT, "test", "mcp", "fixtures", "raw-upstream.ts");

/** A store whose tool-action insert waits until `release` is called, so a cancel lands mid-write. */
function heldInsert(store: ControlPlaneStore, started: () => void, gate: Promise<void>): ControlPlaneStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property !== "insertToolAction") return value.bind(target);
      return async (...args: unknown[]) => {
        started();
        await gate;
        return value.apply(target, args);
      };
    },
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
        const upstream = await Upstream.start({
          command: process.execPath,
          args: ["--import", "tsx", RAW],
          env: { PATH: process.env.PATH ?? "" },
        });
        try {
          const calls = new GovernedCalls({
            port,
            map: rawMap(),
            upstream,
            sessionId: newSessionId(),
            timeoutMs: 600_000,
            log: () => {},
          });
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
        } finally {
          await upstream.close();
        }
      },
    },
    async ({ store, invocationId, manager }) => {
      const actions = await store.listToolActions({ invocationId });
      assert.deepEqual(
        actions.map((a) => a.settlement),
        ["failed"],
      );
      assert.equal(
        manager.schedulers().some((s) => s.lifecycle === "stopped"),
        false,
      );
    },
  );
});
