import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { threadId } from "node:worker_threads";
import { connectToolActionPort, exposeToolActionPort } from "../../../src/index.js";
import { closedSignal } from "../../../src/port/index.js";
import { exampleModel } from "../../helpers/example.js";
import { codeOf, outcomeFor, requestFor } from "../../helpers/tool-requests.js";
import { openCore } from "../support/core.js";
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

describe("a MessagePort bridge when its port closes", () => {
  it("tells the connected side once the port closes, after the calls it already received are answered", async () => {
    const { core } = await openCore(exampleModel());
    const remote = await connectToolActionPort(exposeToolActionPort(core.port));
    const admitted = await remote.admit(requestFor(remote, "at-the-tool"));
    assert.ok(admitted.admitted);
    const id = admitted.actionInstanceId;
    assert.equal(codeOf(await remote.dispatch(id)), "accepted");
    const closed = closedSignal(remote);
    assert.ok(closed && !closed.aborted);
    const told = new Promise<void>((resolve) => closed.addEventListener("abort", () => resolve()));
    core.close();
    await told;
    assert.equal(codeOf(await remote.complete(id, outcomeFor(remote, id))), "invocation_closed");
  });
});
