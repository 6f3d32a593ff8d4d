import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connectToolActionPort, serveToolActionPort } from "../../../src/index.js";
import { approveToolAction, denyToolAction, listOperatorWaits } from "../../../src/operations/index.js";
import { awaitApproval, type InvocationToolActionPort, withhold } from "../../../src/port/index.js";
import type { ControlPlaneStore } from "../../../src/store/index.js";
import { codeOf, outcomeFor, requestFor } from "../../helpers/tool-requests.js";
import { oneInvocation } from "../support/invocation.js";

async function admitted(port: InvocationToolActionPort, toolCallId: string): Promise<string> {
  const decision = await port.admit(requestFor(port, toolCallId));
  assert.ok(decision.admitted, JSON.stringify(decision));
  return decision.actionInstanceId;
}

/** Waits until `id` is held (its approval pending in the store). */
async function pending(store: ControlPlaneStore, id: string): Promise<void> {
  for (let round = 0; round < 1200; round += 1) {
    if ((await listOperatorWaits(store, { limit: 10 })).some((w) => w.entry.id === id)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${id} was never held`);
}

describe("awaitApproval: an admitted action held until an operator decides, in process and across the socket bridge", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-approval-port-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a bridge client holds an action and learns each decision: approved (then dispatched once), denied, given up, expired", async () => {
    const ids: string[] = [];
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "approval.sock") });
          try {
            const remote = await connectToolActionPort({
              socketPath: served.socketPath,
              token: served.token,
            });
            const approved = await admitted(remote, "approved");
            const denied = await admitted(remote, "denied");
            const abandoned = await admitted(remote, "abandoned");
            const timedOut = await admitted(port, "timed-out");
            ids.push(approved, denied, abandoned, timedOut);

            const waiting = awaitApproval(remote, approved, { timeoutSeconds: 600 });
            await pending(store, approved);
            assert.equal(codeOf(await remote.dispatch(approved)), "state_conflict", "held: no dispatch yet");
            assert.equal(
              (await approveToolAction(store, approved, { operator: "alice" })).outcome,
              "approved",
            );
            assert.deepEqual(await waiting, { ok: true, decision: "approved" });
            assert.equal(codeOf(await remote.dispatch(approved)), "accepted");
            assert.equal(codeOf(await remote.dispatch(approved)), "state_conflict", "dispatched once");
            assert.equal(codeOf(await remote.complete(approved, outcomeFor(remote, approved))), "ok");

            const refusing = awaitApproval(remote, denied, { timeoutSeconds: 600 });
            await pending(store, denied);
            assert.equal((await denyToolAction(store, denied, { operator: "bob" })).outcome, "denied");
            assert.deepEqual(await refusing, { ok: true, decision: "denied" });
            assert.equal(codeOf(await withhold(remote, denied, "approval_denied")), "ok");

            // The agent gives up: the client withholds the action, which ends the serving side's wait.
            const controller = new AbortController();
            const givenUp = awaitApproval(remote, abandoned, {
              timeoutSeconds: 600,
              signal: controller.signal,
            });
            await pending(store, abandoned);
            controller.abort();
            assert.deepEqual(await givenUp, { ok: true, decision: "expired" });

            assert.deepEqual(await awaitApproval(port, timedOut, { timeoutSeconds: 1 }), {
              ok: true,
              decision: "expired",
            });
            assert.equal(codeOf(await withhold(port, timedOut, "approval_expired")), "ok");
            // A second hold of one action, and a port not built by raes-ts, cannot hold.
            assert.equal(
              codeOf(await awaitApproval(port, timedOut, { timeoutSeconds: 1 })),
              "state_conflict",
            );
            assert.equal(
              codeOf(await awaitApproval({ ...port }, approved, { timeoutSeconds: 1 })),
              "state_conflict",
            );
          } finally {
            await served.close();
          }
        },
      },
      async ({ store }) => {
        const byId = new Map((await store.listToolActions({})).map((a) => [a.id, a]));
        assert.deepEqual(
          ids.map((id) => {
            const a = byId.get(id);
            return [
              a?.settlement,
              a?.withheldReason,
              a?.approval?.state,
              a?.approval?.operator ?? a?.approval?.expiredBy,
            ];
          }),
          [
            ["succeeded", undefined, "approved", "alice"],
            ["withheld", "approval_denied", "denied", "bob"],
            ["withheld", "approval_expired", "expired", "call_cancelled"],
            ["withheld", "approval_expired", "expired", "timeout"],
          ],
        );
      },
    );
  });

  it("the invocation's close expires a pending approval: withheld with approval_expired", async () => {
    let id = "";
    await oneInvocation(
      {
        body: async (port, { store }) => {
          id = await admitted(port, "left-waiting");
          void awaitApproval(port, id, { timeoutSeconds: 600 });
          await pending(store, id);
        },
      },
      async ({ store }) => {
        const action = await store.getToolAction(id);
        assert.deepEqual(
          [action?.settlement, action?.withheldReason, action?.approval?.state, action?.approval?.expiredBy],
          ["withheld", "approval_expired", "expired", "invocation_closed"],
        );
      },
    );
  });
});
