import assert from "node:assert/strict";
import { hostname } from "node:os";
import { it } from "node:test";
import {
  listOperationsWithOwners,
  newOwnerId,
  type OwnedOperationEntry,
  ownedOperationPages,
  participantOwner,
} from "../../src/operations/index.js";
import type { OperationQuery, ToolActionRecord } from "../../src/store/index.js";
import { deadOwnerId } from "../runtime/dead-owner.js";
import type { FixtureSource } from "./contract.js";
import { closeCommit, invocation, P1, P2, scheduler, toolAction } from "./records.js";

const at = (second: number) => `2025-01-01T00:00:0${second}.000000Z`;
const P3 = "participant:green/participant-unowned";

/**
 * After a process died mid-invocation (P1, its lease held by a dead pid of this host), beside a live
 * runtime's open invocation (P2, this process) and one whose runtime released its lease (P3):
 *   inv-s  P1 :01 succeeded   tool-1 :02 indeterminate
 *   inv-d  P1 :03 running     tool-1 :04 dispatched   tool-2 :05 admitted     (dead owner)
 *   inv-l  P2 :06 running     tool-1 :07 dispatched                           (live owner)
 *   inv-n  P3 :08 running                                                     (no lease)
 */
async function fill(fixture: FixtureSource): Promise<string> {
  const { store } = fixture();
  const s = invocation({ id: "inv-s", ordinal: 0, createdAt: at(1), updatedAt: at(1) });
  const d = invocation({ id: "inv-d", ordinal: 1, createdAt: at(3), updatedAt: at(3) });
  const l = invocation({ id: "inv-l", participantAddress: P2, createdAt: at(6), updatedAt: at(6) });
  const n = invocation({ id: "inv-n", participantAddress: P3, createdAt: at(8), updatedAt: at(8) });
  const s1 = toolAction(s, 1, { phase: "dispatched", createdAt: at(2), updatedAt: at(2) });
  await store.openInvocation(s, scheduler({ nextOrdinal: 1 }));
  await store.insertToolAction(s1);
  const settled: ToolActionRecord = { ...s1, phase: "settled", settlement: "indeterminate" };
  await store.commitInvocation(closeCommit(s, [settled]));
  await store.openInvocation(d, scheduler({ nextOrdinal: 2 }));
  await store.insertToolAction(toolAction(d, 1, { phase: "dispatched", createdAt: at(4), updatedAt: at(4) }));
  await store.insertToolAction(toolAction(d, 2, { createdAt: at(5), updatedAt: at(5) }));
  await store.openInvocation(l, scheduler({ participantAddress: P2, nextOrdinal: 2 }));
  await store.insertToolAction(toolAction(l, 1, { phase: "dispatched", createdAt: at(7), updatedAt: at(7) }));
  await store.openInvocation(n, scheduler({ participantAddress: P3, nextOrdinal: 2 }));
  const dead = await deadOwnerId();
  assert.ok(await store.acquireLease(P1, dead, 600_000));
  assert.ok(await store.acquireLease(P2, newOwnerId(), 600_000));
  return dead;
}

/** Each row as [id, state, owner status or "-", on_recovery or "-"]. */
function shape(rows: readonly OwnedOperationEntry[]): string[][] {
  return rows.map((r) => [r.id, r.state, r.owner?.status ?? "-", r.onRecovery ?? "-"]);
}

const CASES: readonly [OperationQuery, readonly string[][]][] = [
  [
    { state: "indeterminate" },
    [
      ["inv-d.tool-1", "running", "dead", "indeterminate"],
      ["inv-s.tool-1", "indeterminate", "-", "-"],
    ],
  ],
  [{ state: "indeterminate", limit: 1 }, [["inv-d.tool-1", "running", "dead", "indeterminate"]]],
  [{ state: "indeterminate", kind: "scheduler_invocation" }, []],
  [{ state: "cancelled" }, [["inv-d.tool-2", "accepted", "dead", "cancelled"]]],
  [
    { state: "failed" },
    [
      ["inv-n", "running", "none", "failed"],
      ["inv-d", "running", "dead", "failed"],
    ],
  ],
  [
    { state: "running" },
    [
      ["inv-n", "running", "none", "failed"],
      ["inv-l.tool-1", "running", "live", "-"],
      ["inv-l", "running", "live", "-"],
      ["inv-d.tool-1", "running", "dead", "indeterminate"],
      ["inv-d", "running", "dead", "failed"],
    ],
  ],
  [
    { participantAddress: P1 },
    [
      ["inv-d.tool-2", "accepted", "dead", "cancelled"],
      ["inv-d.tool-1", "running", "dead", "indeterminate"],
      ["inv-d", "running", "dead", "failed"],
      ["inv-s.tool-1", "indeterminate", "-", "-"],
      ["inv-s", "succeeded", "-", "-"],
    ],
  ],
];

/** Read commands judge a dead runtime's in-flight operations by the rule `raes run` takes leases by. */
export function inDoubtCases(fixture: FixtureSource): void {
  it("lists a dead owner's in-flight operations with their owner and the state recovery gives them", async () => {
    const dead = await fill(fixture);
    for (const [query, expected] of CASES) {
      const rows = await listOperationsWithOwners(fixture().store, query);
      assert.deepEqual(shape(rows), expected, JSON.stringify(query));
    }
    const [row] = await listOperationsWithOwners(fixture().store, { state: "indeterminate", limit: 1 });
    assert.deepEqual(
      [row?.owner?.ownerId, row?.owner?.host, row?.owner?.pid],
      [dead, hostname(), Number(dead.split("/")[1])],
    );
  });

  it("gives the same rows read in pages of any size, each read asking for at most a page", async () => {
    await fill(fixture);
    const { store } = fixture();
    const asked: number[] = [];
    const counting = new Proxy(store, {
      get(target, name) {
        if (name !== "listOperations") {
          const value = Reflect.get(target, name, target);
          return typeof value === "function" ? value.bind(target) : value;
        }
        return (query: OperationQuery) => {
          asked.push(query.limit ?? Number.NaN);
          return target.listOperations(query);
        };
      },
    });
    for (const [query, expected] of CASES) {
      for (const size of [1, 2, 3]) {
        asked.length = 0;
        const rows: OwnedOperationEntry[] = [];
        for await (const page of ownedOperationPages(counting, query, Date.now, size)) {
          assert.ok(page.length > 0);
          rows.push(...page);
        }
        assert.deepEqual(shape(rows), expected, `${JSON.stringify(query)} in pages of ${size}`);
        // The in-flight rows recovery may settle to the state asked for are read once, whole (a few per participant).
        const listing = asked.filter((limit) => limit <= size);
        assert.ok(listing.length >= 1, `${JSON.stringify(query)}: ${asked.join(",")}`);
        assert.ok(
          asked.every((limit) => limit <= size || limit >= 1_000),
          `${JSON.stringify(query)}: ${asked.join(",")}`,
        );
      }
    }
  });

  it("changes nothing: the interrupted rows stay running until a runtime recovers them", async () => {
    await fill(fixture);
    const { store } = fixture();
    await listOperationsWithOwners(store, { state: "indeterminate" });
    assert.equal((await store.getInvocation("inv-d"))?.state, "running");
    assert.equal((await store.getToolAction("inv-d.tool-1"))?.phase, "dispatched");
    assert.ok(await store.getLease(P1), "the dead owner's lease is left for raes run to take over");
  });

  it("calls a live owner's lease expired once its time has passed, and no lease no owner", async () => {
    await fill(fixture);
    const { store } = fixture();
    const later = () => Date.now() + 3_600_000;
    assert.equal((await participantOwner(store, P2)).status, "live");
    assert.equal((await participantOwner(store, P2, later)).status, "expired");
    assert.equal((await participantOwner(store, P3)).status, "none");
  });
}
