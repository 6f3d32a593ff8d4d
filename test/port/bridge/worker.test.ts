import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { threadId } from "node:worker_threads";
import { codeOf, requestFor } from "../../helpers/tool-requests.js";
import { oneInvocation } from "../support/invocation.js";
import { runVector, SPEC } from "../support/vectors.js";
import { WorkerPortHost } from "../support/worker-host.js";

describe("worker-thread bridge: every conformance vector, every call made from a real worker", () => {
  let host: WorkerPortHost;
  before(() => {
    host = new WorkerPortHost();
  });
  after(async () => {
    await host.close();
  });

  it("runs all 27 vectors", () => assert.equal(SPEC.vectors.length, 27));

  for (const vector of SPEC.vectors) {
    it(vector.name, async () => {
      const used = await runVector(vector, host.connect);
      assert.equal(typeof used.admit, "function");
      assert.deepEqual(
        [...host.callerThreads].filter((id) => id === threadId),
        [],
        "calls came from another thread",
      );
      assert.ok(host.callerThreads.size >= 1, "the worker connected");
    });
  }

  it("limits and idempotency hold for concurrent calls from the worker", async () => {
    await oneInvocation(
      {
        body: async (attached, { store }) => {
          const port = await host.connect(attached);
          const same = await Promise.all(
            Array.from({ length: 16 }, () => port.admit(requestFor(port, "same"))),
          );
          assert.equal(new Set(same.map((d) => JSON.stringify(d))).size, 1);
          const many = await Promise.all(
            Array.from({ length: 64 }, (_, i) => port.admit(requestFor(port, `c${i}`))),
          );
          assert.equal(many.filter((d) => d.admitted).length, 3, "one slot is taken by 'same'");
          assert.deepEqual(
            [...new Set(many.filter((d) => !d.admitted).map(codeOf))],
            ["concurrency_limit_exhausted"],
          );
          const records = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
          assert.equal(records.length, 4);
        },
      },
      async ({ events }) => assert.equal(events.filter((e) => e.event_type === "action_attempted").length, 5),
    );
  });
});
