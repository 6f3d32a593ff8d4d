import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ControlPlaneStore, StoreSchemaDamagedError } from "../../src/index.js";
import { EXAMPLE } from "../helpers/example.js";
import { withWriteFaults } from "../helpers/faulty-store.js";
import { codeOf, requestFor } from "../helpers/tool-requests.js";
import { oneInvocation } from "./support/invocation.js";

const OWNER = "ledger-failure-test-owner";

/** Lines that report a failed ledger write. */
const ledgerLines = (log: readonly string[]) => log.filter((l) => l.startsWith("ledger write failed"));

describe("a failed ledger write answers ledger_unavailable and logs its cause once", () => {
  it("lease lost: another owner took the participant's lease", async () => {
    const log: string[] = [];
    const step = oneInvocation(
      {
        ownerId: OWNER,
        log,
        body: async (port, { store }) => {
          assert.ok(await store.acquireLease(EXAMPLE.participant, "thief", 60_000, { replacing: OWNER }));
          assert.equal(codeOf(await port.admit(requestFor(port, "a"))), "ledger_unavailable");
        },
      },
      async () => assert.fail("the close commit is fenced too, so the step fails once the lease is gone"),
    );
    await assert.rejects(step, { code: "store.lease-lost" });
    const lines = ledgerLines(log);
    assert.equal(lines.length, 1, log.join("\n"));
    assert.match(lines[0] ?? "", /^ledger write failed \(lease_lost\): insert of \S+:tool=1/);
  });

  it("conflict: the stored record left the phase the port expected", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const decision = await port.admit(requestFor(port, "a"));
          assert.ok(decision.admitted);
          const [record] = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
          assert.ok(record);
          assert.equal(await store.updateToolAction({ ...record, phase: "dispatched" }, "admitted"), true);
          assert.equal(codeOf(await port.dispatch(decision.actionInstanceId)), "ledger_unavailable");
        },
      },
      async ({ log }) => {
        const lines = ledgerLines(log);
        assert.equal(lines.length, 1, log.join("\n"));
        assert.match(lines[0] ?? "", /^ledger write failed \(conflict\): update of \S+:tool=1 to dispatched/);
      },
    );
  });

  for (const [cause, fault] of [
    ["unavailable", undefined],
    ["bug", () => new TypeError("cannot read properties of undefined (reading 'token')")],
    [
      "schema_damaged",
      () =>
        new StoreSchemaDamagedError(
          "control-plane store sqlite:x.db is damaged: no such table: tool_actions",
        ),
    ],
  ] as const) {
    it(`${cause}: the store threw, and the line says what`, async () => {
      let faults: ReturnType<typeof withWriteFaults> | undefined;
      await oneInvocation(
        {
          wrapStore: (store: ControlPlaneStore) => {
            faults = withWriteFaults(store, fault);
            return faults.store;
          },
          body: async (port) => {
            faults?.failing.add("insertToolAction");
            assert.equal(codeOf(await port.admit(requestFor(port, "a"))), "ledger_unavailable");
            faults?.failing.clear();
          },
        },
        async ({ log }) => {
          const lines = ledgerLines(log);
          assert.equal(lines.length, 1, log.join("\n"));
          assert.match(
            lines[0] ?? "",
            new RegExp(`^ledger write failed \\(${cause}\\): insert of \\S+:tool=1`),
          );
          if (cause === "bug") assert.match(lines[0] ?? "", /TypeError: cannot read properties/);
          if (cause === "schema_damaged")
            assert.match(lines[0] ?? "", /StoreSchemaDamagedError: .* no such table: tool_actions/);
        },
      );
    });
  }
});
