import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  connectToolActionPort,
  exposeToolActionPort,
  type InvocationToolActionPort,
  serveToolActionPort,
} from "../../src/index.js";
import { codeOf, outcomeFor, requestFor } from "../helpers/tool-requests.js";
import { manifestWithLimits } from "./support/core.js";
import { oneInvocation } from "./support/invocation.js";
import { phaseCounts, watchUnsettled } from "./support/watch.js";

describe("races on one invocation's port", () => {
  it("the same tool_call_id admitted 16 ways at once: one record, 16 identical decisions", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-race-"));
    try {
      await oneInvocation(
        {
          body: async (port, { store }) => {
            const served = await serveToolActionPort(port, { socketPath: join(dir, "port.sock") });
            try {
              const viaMessagePort = await connectToolActionPort(exposeToolActionPort(port));
              const viaSocket = await connectToolActionPort({
                socketPath: served.socketPath,
                token: served.token,
              });
              const request = requestFor(port, "same");
              const reordered = Object.fromEntries(Object.entries(request).reverse()) as typeof request;
              const copied = { ...request, targetAddresses: [...request.targetAddresses] };
              const ways: Array<[InvocationToolActionPort, unknown]> = [
                ...Array.from({ length: 4 }, () => [port, request] as [InvocationToolActionPort, unknown]),
                ...Array.from({ length: 3 }, () => [port, reordered] as [InvocationToolActionPort, unknown]),
                ...Array.from({ length: 3 }, () => [port, copied] as [InvocationToolActionPort, unknown]),
                ...Array.from(
                  { length: 3 },
                  () => [viaMessagePort, request] as [InvocationToolActionPort, unknown],
                ),
                ...Array.from(
                  { length: 3 },
                  () => [viaSocket, reordered] as [InvocationToolActionPort, unknown],
                ),
              ];
              assert.equal(ways.length, 16);
              const decisions = await Promise.all(ways.map(([p, r]) => p.admit(r as never)));
              const texts = new Set(decisions.map((d) => JSON.stringify(d)));
              assert.deepEqual(
                [...texts],
                [
                  JSON.stringify({
                    admitted: true,
                    actionInstanceId: `${port.invocationActionInstanceId}:tool=1`,
                  }),
                ],
              );
              const records = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
              assert.equal(records.length, 1);
            } finally {
              await served.close();
            }
          },
        },
        async ({ events }) => assert.equal(events.filter((e) => e.invocation_tool_context).length, 3),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("64 concurrent admits against max_concurrent = 4: never more than 4 unsettled", async () => {
    let watch: ReturnType<typeof watchUnsettled> | undefined;
    await oneInvocation(
      {
        wrapStore: (store) => {
          watch = watchUnsettled(store);
          return watch.store;
        },
        body: async (port, { store }) => {
          const decisions = await Promise.all(
            Array.from({ length: 64 }, (_, i) => port.admit(requestFor(port, `call-${i}`))),
          );
          const admitted = decisions.filter((d) => d.admitted);
          assert.equal(admitted.length, 4);
          assert.equal(new Set(admitted.map((d) => d.actionInstanceId)).size, 4);
          const refusals = new Set(decisions.filter((d) => !d.admitted).map(codeOf));
          assert.deepEqual([...refusals], ["concurrency_limit_exhausted"]);
          assert.deepEqual(await phaseCounts(store, port.invocationActionInstanceId), {
            admitted: 4,
            dispatched: 0,
            settled: 0,
          });
        },
      },
      async () => {
        assert.equal(watch?.peak(), 4);
      },
    );
  });

  it("interleaved settle/admit races keep both limits exact", async () => {
    const total = 40;
    const concurrent = 4;
    let watch: ReturnType<typeof watchUnsettled> | undefined;
    await oneInvocation(
      {
        manifest: manifestWithLimits(total, concurrent),
        wrapStore: (store) => {
          watch = watchUnsettled(store);
          return watch.store;
        },
        body: async (port, { store }) => {
          const open: string[] = [];
          let next = 0;
          const settlers = [
            (id: string) => port.cancel(id),
            async (id: string) => {
              await port.dispatch(id);
              return port.complete(id, outcomeFor(port, id));
            },
            async (id: string) => {
              await port.dispatch(id);
              return port.reportUnknown(id, "timeout");
            },
          ];
          for (let round = 0; round < 30; round += 1) {
            const settling = open.splice(0, 1 + (round % 3));
            const results = await Promise.all([
              ...settling.map((id, i) => settlers[(round + i) % settlers.length]?.(id)),
              ...Array.from({ length: 3 }, () => port.admit(requestFor(port, `r${next++}`))),
            ]);
            for (const result of results) {
              if (result && "admitted" in result && result.admitted) open.push(result.actionInstanceId);
            }
            const counts = await phaseCounts(store, port.invocationActionInstanceId);
            assert.ok((counts.admitted ?? 0) + (counts.dispatched ?? 0) <= concurrent, `round ${round}`);
            assert.equal(
              (counts.admitted ?? 0) + (counts.dispatched ?? 0),
              open.length,
              `round ${round}: open actions`,
            );
          }
          // Fill up what is left: the limits must be reached exactly, not drifted by the races.
          let refusal = "";
          while (refusal === "") {
            const decision = await port.admit(requestFor(port, `r${next++}`));
            if (decision.admitted) open.push(decision.actionInstanceId);
            else refusal = decision.refusal;
            if (refusal === "concurrency_limit_exhausted") {
              assert.equal(open.length, concurrent);
              await port.cancel(open.shift() ?? "");
              refusal = "";
            }
          }
          assert.equal(refusal, "action_limit_exhausted");
          assert.equal(
            (await store.listToolActions({ invocationId: port.invocationActionInstanceId })).length,
            total,
          );
        },
      },
      async ({ events }) => {
        assert.equal(watch?.peak(), concurrent);
        assert.equal(events.filter((e) => e.event_type === "action_attempted").length, total + 1);
      },
    );
  });

  it("concurrent dispatch of one id: exactly one accepted; concurrent settles: exactly one wins", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const decision = await port.admit(requestFor(port, "a"));
          assert.ok(decision.admitted);
          const id = decision.actionInstanceId;
          const receipts = (await Promise.all(Array.from({ length: 16 }, () => port.dispatch(id)))).map(
            codeOf,
          );
          assert.equal(receipts.filter((r) => r === "accepted").length, 1);
          assert.equal(receipts.filter((r) => r === "state_conflict").length, 15);
          const settles = await Promise.all([
            port.complete(id, outcomeFor(port, id)),
            port.complete(id, outcomeFor(port, id, { status: "failed" })),
            port.reportUnknown(id, "timeout"),
            port.cancel(id),
            port.complete(id, outcomeFor(port, id, { status: "partial_success" })),
          ]);
          const codes = settles.map(codeOf);
          assert.equal(codes.filter((c) => c === "ok").length, 1, codes.join());
          const record = await store.getToolAction(id);
          const winner = ["succeeded", "failed", "indeterminate", "-", "partial_success"][
            codes.indexOf("ok")
          ];
          assert.equal(record?.settlement, winner);
          const b = await port.admit(requestFor(port, "b"));
          assert.ok(b.admitted);
          const race = (
            await Promise.all([port.cancel(b.actionInstanceId), port.dispatch(b.actionInstanceId)])
          ).map(codeOf);
          assert.equal(race.filter((c) => c === "ok" || c === "accepted").length, 1, race.join());
        },
      },
      async ({ events }) => assert.equal(events.filter((e) => e.event_type === "action_attempted").length, 3),
    );
  });
});
