import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readLines } from "../../src/port/bridge/lines.js";
import { portIdentity, serveRemoteCall } from "../../src/port/bridge/remote.js";
import {
  admitAndDispatch,
  combinesAdmitDispatch,
  connectToolActionPort,
  type InvocationToolActionPort,
  serveToolActionPort,
} from "../../src/port/index.js";
import { codeOf, outcomeFor, requestFor } from "../helpers/tool-requests.js";
import { oneInvocation } from "./support/invocation.js";

const SIMPLE_FIELDS = ["phase", "admittedAt", "dispatchedAt", "settlement"] as const;

describe("admitAndDispatch: admission and dispatch in one step and one durable write", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-admit-dispatch-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a fresh admission is written once, already dispatched, and answered with its receipt", async () => {
    const writes: string[] = [];
    await oneInvocation(
      {
        wrapStore: (store) =>
          new Proxy(store, {
            get(target, property, receiver) {
              const value = Reflect.get(target, property, receiver);
              if (typeof value !== "function") return value;
              return (...args: unknown[]) => {
                if (property === "insertToolAction" || property === "updateToolAction")
                  writes.push(`${property}:${(args[0] as { phase: string }).phase}`);
                return value.apply(target, args);
              };
            },
          }),
        body: async (port, { store }) => {
          assert.equal(combinesAdmitDispatch(port), true);
          const answer = await admitAndDispatch(port, requestFor(port, "a"));
          assert.deepEqual(answer, {
            decision: { admitted: true, actionInstanceId: `${port.invocationActionInstanceId}:tool=1` },
            receipt: { accepted: true },
          });
          assert.deepEqual(writes, ["insertToolAction:dispatched"], "one write, the dispatch in it");
          const [stored] = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
          assert.equal(stored?.phase, "dispatched");
          assert.equal(stored?.dispatchedAt, stored?.admittedAt);
          const id = answer.decision.admitted ? answer.decision.actionInstanceId : "";
          assert.equal(codeOf(await port.dispatch(id)), "state_conflict", "a second dispatch");
          assert.equal(codeOf(await port.cancel(id)), "state_conflict", "dispatched: no cancel");
          assert.equal(codeOf(await port.complete(id, outcomeFor(port, id))), "ok");
          return id;
        },
      },
      async ({ value: id = "", manager, events }) => {
        const operation = await manager.getOperation(id);
        assert.equal(operation?.settlement, "succeeded");
        assert.equal(events.filter((e) => e.invocation_tool_context).length, 3);
      },
    );
  });

  it("a retried tool_call_id gets its original decision and no receipt; nothing is dispatched twice", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const first = await admitAndDispatch(port, requestFor(port, "r"));
          assert.ok(first.receipt?.accepted);
          const id = first.decision.admitted ? first.decision.actionInstanceId : "";
          const again = await admitAndDispatch(port, requestFor(port, "r"));
          assert.deepEqual(again, { decision: first.decision }, "while dispatched");
          assert.equal(codeOf(await port.complete(id, outcomeFor(port, id))), "ok");
          const settled = await admitAndDispatch(port, requestFor(port, "r"));
          assert.deepEqual(settled, { decision: first.decision }, "once settled");
          assert.deepEqual(await port.admit(requestFor(port, "r")), first.decision, "plain admit agrees");
          const conflict = await admitAndDispatch(port, requestFor(port, "r", { toolName: "other" }));
          assert.deepEqual(conflict, { decision: { admitted: false, refusal: "request_conflict" } });
          // An action admitted alone is never dispatched by a later combined retry either.
          const alone = await port.admit(requestFor(port, "s"));
          assert.deepEqual(await admitAndDispatch(port, requestFor(port, "s")), { decision: alone });
          const records = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
          assert.deepEqual(
            records.map((r) => [r.toolCallId, r.phase, r.settlement]),
            [
              ["r", "settled", "succeeded"],
              ["s", "admitted", undefined],
            ],
          );
        },
      },
      async ({ store, invocationId }) => {
        const actions = await store.listToolActions({ invocationId });
        assert.deepEqual(
          actions.map((a) => a.settlement),
          ["succeeded", "withheld"],
        );
      },
    );
  });

  it("refusals write nothing, dispatch nothing, and are counted as admit refusals", async () => {
    await oneInvocation(
      {
        body: async (port, { store, failing }) => {
          const refused = async (request: unknown) => {
            const answer = await admitAndDispatch(port, request);
            assert.equal(answer.receipt, undefined);
            return codeOf(answer.decision);
          };
          assert.equal(await refused({ toolCallId: "x" }), "request_invalid");
          assert.equal(await refused(requestFor(port, "i", { episodeId: "other" })), "identity_mismatch");
          assert.equal(
            await refused(requestFor(port, "t", { targetAddresses: ["provision.node.elsewhere"] })),
            "target_outside_binding",
          );
          failing.add("insertToolAction");
          assert.equal(await refused(requestFor(port, "l")), "ledger_unavailable");
          failing.delete("insertToolAction");
          assert.deepEqual(
            await store.listToolActions({ invocationId: port.invocationActionInstanceId }),
            [],
          );
          // A refusal is not remembered: the same request is evaluated afresh once the store is back.
          const later = await admitAndDispatch(port, requestFor(port, "l"));
          assert.ok(later.receipt?.accepted);
          const id = later.decision.admitted ? later.decision.actionInstanceId : "";
          assert.equal(id, `${port.invocationActionInstanceId}:tool=1`, "no ordinal was used up");
          return id;
        },
      },
      async ({ store, invocationId, value: id = "", log }) => {
        assert.deepEqual((await store.getInvocation(invocationId))?.refusals, {
          identity_mismatch: 1,
          ledger_unavailable: 1,
          request_invalid: 1,
          target_outside_binding: 1,
        });
        assert.ok(log.some((line) => line.includes(id) && line.includes("dispatched")));
        assert.equal((await store.getToolAction(id))?.settlement, "indeterminate");
      },
    );
  });

  it("the limits hold: the per-invocation total and the concurrent limit", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const answers = await Promise.all(
            Array.from({ length: 6 }, (_, i) => admitAndDispatch(port, requestFor(port, `c${i}`))),
          );
          assert.deepEqual(
            answers.map((a) => codeOf(a.decision)),
            ["admitted", "admitted", "admitted", "admitted", ...Array(2).fill("concurrency_limit_exhausted")],
          );
        },
      },
      async ({ store, invocationId }) => {
        const actions = await store.listToolActions({ invocationId });
        assert.deepEqual([...new Set(actions.map((a) => a.settlement))], ["indeterminate"]);
      },
    );
  });

  it("after close, and before the port opens, it answers like admit", async () => {
    let attached: InvocationToolActionPort | undefined;
    let early: unknown;
    await oneInvocation(
      {
        onAttach: async (port) => {
          attached = port;
          early = await admitAndDispatch(port, requestFor(port, "early"));
        },
        body: async () => undefined,
      },
      async ({ store, invocationId }) => {
        assert.ok(attached);
        assert.deepEqual(early, { decision: { admitted: false, refusal: "invocation_inactive" } });
        assert.deepEqual(await admitAndDispatch(attached, requestFor(attached, "late")), {
          decision: { admitted: false, refusal: "invocation_closed" },
        });
        assert.deepEqual(await store.listToolActions({ invocationId }), []);
      },
    );
  });

  it("a wrapped port keeps its own admit: it is asked, and nothing is dispatched for it", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const asked: string[] = [];
          const wrapped: InvocationToolActionPort = {
            ...port,
            admit: (request) => {
              asked.push(request.toolCallId);
              return port.admit(request);
            },
          };
          assert.equal(combinesAdmitDispatch(wrapped), false);
          const answer = await admitAndDispatch(wrapped, requestFor(port, "w"));
          assert.equal(answer.receipt, undefined);
          assert.deepEqual(asked, ["w"]);
          const [record] = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
          assert.equal(record?.phase, "admitted");
          // Served, the wrapper is what the wire reaches, and the combined call answers the admission alone.
          const reply = await serveRemoteCall(wrapped, {
            id: 7,
            method: "admitDispatch",
            args: [requestFor(port, "w2")],
          });
          assert.deepEqual(reply, {
            id: 7,
            result: {
              decision: { admitted: true, actionInstanceId: `${port.invocationActionInstanceId}:tool=2` },
            },
          });
          assert.deepEqual(asked, ["w", "w2"]);
        },
      },
      async () => undefined,
    );
  });

  it("over the socket bridge it is one wire call; after close the peer gets invocation_closed in its shape", async () => {
    let remote: InvocationToolActionPort | undefined;
    let close: () => Promise<void> = async () => undefined;
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "combined.sock") });
          close = served.close;
          remote = await connectToolActionPort({ socketPath: served.socketPath, token: served.token });
          assert.equal(combinesAdmitDispatch(remote), true, "the server offered it in its hello");
          const answer = await admitAndDispatch(remote, requestFor(remote, "a"));
          assert.deepEqual(answer.receipt, { accepted: true });
          const [record] = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
          assert.deepEqual(
            SIMPLE_FIELDS.map((f) => record?.[f] !== undefined),
            [true, true, true, false],
          );
          assert.equal(record?.phase, "dispatched");
          const again = await admitAndDispatch(remote, requestFor(remote, "a"));
          assert.deepEqual(again, { decision: answer.decision });
          const malformed = await serveRemoteCall(port, { id: 3, method: "admitDispatch", args: [1, 2, 3] });
          assert.deepEqual(malformed, {
            id: 3,
            result: { decision: { admitted: false, refusal: "request_invalid" } },
          });
          return answer.decision.admitted ? answer.decision.actionInstanceId : "";
        },
      },
      async ({ value: id = "", manager }) => {
        try {
          assert.ok(remote);
          assert.deepEqual(await admitAndDispatch(remote, requestFor(remote, "b")), {
            decision: { admitted: false, refusal: "invocation_closed" },
          });
          assert.equal((await manager.getOperation(id))?.settlement, "indeterminate");
        } finally {
          await close();
        }
      },
    );
  });

  it("a client of a server whose hello does not offer it admits alone and dispatches with its own call", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          // A server of an older version: its hello carries the identity only, and it serves the port API.
          const socketPath = join(dir, "old.sock");
          const methods: unknown[] = [];
          const sockets: Socket[] = [];
          const server = createServer((socket) => {
            sockets.push(socket);
            let hello = false;
            readLines(
              socket,
              () => 1 << 20,
              (line) => {
                if (!hello) {
                  hello = true;
                  return void socket.write(`${JSON.stringify({ hello: portIdentity(port) })}\n`);
                }
                const call = JSON.parse(line) as { method: unknown };
                methods.push(call.method);
                void serveRemoteCall(port, call).then((reply) => socket.write(`${JSON.stringify(reply)}\n`));
              },
              () => socket.destroy(),
            );
          });
          await new Promise<void>((resolve) => server.listen(socketPath, resolve));
          try {
            const remote = await connectToolActionPort({ socketPath, token: "t".repeat(32) });
            assert.equal(combinesAdmitDispatch(remote), false);
            const answer = await admitAndDispatch(remote, requestFor(remote, "o"));
            assert.equal(answer.receipt, undefined);
            assert.ok(answer.decision.admitted);
            assert.equal(codeOf(await remote.dispatch(answer.decision.actionInstanceId)), "accepted");
            assert.deepEqual(methods, ["admit", "dispatch"], "only port API methods went to the old server");
            const [record] = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
            assert.equal(record?.phase, "dispatched");
          } finally {
            server.close();
            for (const socket of sockets) socket.destroy();
          }
        },
      },
      async () => undefined,
    );
  });
});
