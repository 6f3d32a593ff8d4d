import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connectToolActionPort, serveToolActionPort } from "../../../src/index.js";
import { type InvocationToolActionPort, withhold } from "../../../src/port/index.js";
import { codeOf, requestFor } from "../../helpers/tool-requests.js";
import { oneInvocation } from "../support/invocation.js";

async function admitted(port: InvocationToolActionPort, toolCallId: string): Promise<string> {
  const decision = await port.admit(requestFor(port, toolCallId));
  assert.ok(decision.admitted, JSON.stringify(decision));
  return decision.actionInstanceId;
}

describe("withhold: an admitted action cancelled before dispatch, with its reason", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-withhold-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("settles withheld with the reason recorded, in process and across the socket bridge; a dispatched action or a malformed reason is refused", async () => {
    const ids: string[] = [];
    await oneInvocation(
      {
        body: async (port) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "withhold.sock") });
          try {
            const remote = await connectToolActionPort({
              socketPath: served.socketPath,
              token: served.token,
            });
            const local = await admitted(port, "local");
            const bridged = await admitted(remote, "bridged");
            const dispatched = await admitted(remote, "dispatched");
            const badReason = await admitted(port, "bad-reason");
            ids.push(local, bridged, dispatched, badReason);
            assert.equal(codeOf(await withhold(port, local, "arguments_rejected")), "ok");
            assert.equal(codeOf(await withhold(remote, bridged, "arguments_rejected")), "ok");
            assert.equal(codeOf(await remote.dispatch(dispatched)), "accepted");
            assert.equal(codeOf(await withhold(remote, dispatched, "arguments_rejected")), "state_conflict");
            for (const bad of ["Not A Code", "a".repeat(65), 7])
              assert.equal(codeOf(await withhold(port, badReason, bad as string)), "request_invalid");
            await remote.reportUnknown(dispatched, "test-ends");
          } finally {
            await served.close();
          }
        },
      },
      async ({ store }) => {
        const actions = await store.listToolActions({});
        const byId = new Map(actions.map((a) => [a.id, a]));
        assert.deepEqual(
          ids.map((id) => [byId.get(id)?.settlement, byId.get(id)?.withheldReason]),
          [
            ["withheld", "arguments_rejected"],
            ["withheld", "arguments_rejected"],
            ["indeterminate", undefined],
            // Refused, then settled at the invocation's close: withheld, without a reason.
            ["withheld", undefined],
          ],
        );
      },
    );
  });

  it("a port not built by raes-ts gets a plain cancel: withheld, without a reason", async () => {
    let id = "";
    await oneInvocation(
      {
        body: async (port) => {
          id = await admitted(port, "wrapped");
          assert.equal(codeOf(await withhold({ ...port }, id, "arguments_rejected")), "ok");
        },
      },
      async ({ store }) => {
        const action = await store.getToolAction(id);
        assert.deepEqual([action?.settlement, action?.withheldReason], ["withheld", undefined]);
      },
    );
  });
});
