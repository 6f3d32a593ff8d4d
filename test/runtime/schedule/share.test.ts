import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planShare, type ShareView } from "../../../src/runtime/index.js";
import type { Lease } from "../../../src/store/index.js";

const P = Array.from({ length: 10 }, (_, i) => `p${i}`);
const lease = (participantAddress: string, ownerId: string): Lease => ({
  participantAddress,
  ownerId,
  token: 1,
  expiresAt: 0,
});
const members = (...ids: string[]) => ids.map((ownerId) => ({ ownerId, expiresAt: 0 }));

/** The view of `ownerId` when each process holds the participants listed for it. */
function view(
  ownerId: string,
  holdings: Record<string, readonly string[]>,
  live = Object.keys(holdings),
): ShareView {
  const leases = Object.entries(holdings).flatMap(([owner, ps]) => ps.map((p) => lease(p, owner)));
  return {
    ownerId,
    participants: P,
    members: members(...live),
    leases,
    owned: new Set(holdings[ownerId] ?? []),
  };
}

describe("planShare: each process's share of the participants", () => {
  it("targets sum to M, each ⌊M/N⌋ or ⌈M/N⌉, the extra ones going to the processes that own most", () => {
    const holdings = { a: P.slice(0, 2), b: P.slice(2, 9), c: P.slice(9) };
    const targets = ["a", "b", "c"].map((id) => planShare(view(id, holdings)).target);
    assert.deepEqual(targets, [3, 4, 3]);
    const tied = { a: [], b: [], c: [] };
    assert.deepEqual(
      ["a", "b", "c"].map((id) => planShare(view(id, tied)).target),
      [4, 3, 3],
      "ties go by owner id",
    );
  });

  it("a stable division is left alone: no process releases or takes anything", () => {
    const holdings = { a: P.slice(0, 4), b: P.slice(4, 7), c: P.slice(7) };
    for (const id of ["a", "b", "c"])
      assert.deepEqual(planShare(view(id, holdings)), {
        target: id === "a" ? 4 : 3,
        release: [],
        acquire: [],
      });
  });

  it("a process over its share releases exactly the surplus, of the participants it owns", () => {
    const plan = planShare(view("a", { a: P, b: [] }));
    assert.equal(plan.target, 5);
    assert.equal(plan.release.length, 5);
    assert.ok(plan.release.every((p) => P.includes(p)));
    assert.equal(new Set(plan.release).size, 5);
    assert.deepEqual(plan.acquire, []);
  });

  it("a process under its share tries free participants first, then those held by no live process, never a live one's", () => {
    const plan = planShare(view("b", { a: P.slice(0, 3), b: [], gone: P.slice(3, 6) }, ["a", "b"]));
    assert.equal(plan.target, 5);
    assert.deepEqual(plan.release, []);
    assert.deepEqual(new Set(plan.acquire.slice(0, 4)), new Set(P.slice(6)), "free ones first");
    assert.deepEqual(new Set(plan.acquire.slice(4)), new Set(P.slice(3, 6)), "then the gone process's");
  });

  it("two processes prefer different free participants", () => {
    const free = { a: [], b: [] };
    const a = planShare(view("a", free)).acquire.slice(0, 5);
    const b = planShare(view("b", free)).acquire.slice(0, 5);
    assert.ok(
      a.some((p) => !b.includes(p)),
      `both prefer ${a.join(",")}`,
    );
  });

  it("with more processes than participants, the ones that own keep them and the rest target none", () => {
    const one = { participants: ["p0"], members: members("a", "b"), leases: [lease("p0", "b")] };
    assert.equal(planShare({ ...one, ownerId: "b", owned: new Set(["p0"]) }).target, 1);
    assert.deepEqual(planShare({ ...one, ownerId: "a", owned: new Set() }), {
      target: 0,
      release: [],
      acquire: [],
    });
  });

  it("counts itself live even when its own heartbeat is missing from the view", () => {
    const plan = planShare({ ownerId: "a", participants: P, members: [], leases: [], owned: new Set() });
    assert.equal(plan.target, 10);
    assert.equal(plan.acquire.length, 10);
  });
});
