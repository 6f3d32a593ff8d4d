import assert from "node:assert/strict";
import { it } from "node:test";
import type { EventFrame } from "../../src/history/index.js";
import { recoverInterruptedInvocations } from "../../src/runtime/index.js";
import {
  type ControlPlaneStore,
  type InvocationRecord,
  LeaseLostError,
  StoreConflictError,
  type ToolActionRecord,
} from "../../src/store/index.js";
import type { FixtureSource } from "./contract.js";
import { closeCommit, invocation, P1, P2, scheduler, toolAction } from "./records.js";

const P3 = "participant:green/participant-auditor";
const PARTICIPANTS = [P1, P2, P3];
// More than one PostgreSQL statement's batch (500), so a participant's commit spans several.
const PER_PARTICIPANT = 510;
const FRAME: EventFrame = {
  actorProvenance: "participant-implementation:impl:agent@1",
  clockAuthority: "clock:shared",
  timeDomain: "simulation_time",
  temporalContractIds: ["constraint:cadence"],
};

/** Each participant's interrupted invocations, each with one tool action in the phase its index picks. */
async function interrupted(store: ControlPlaneStore, perParticipant: number) {
  const invocations: InvocationRecord[] = [];
  const actions: ToolActionRecord[] = [];
  for (const [p, participantAddress] of PARTICIPANTS.entries()) {
    for (let k = 1; k <= perParticipant; k += 1) {
      const inv = invocation({
        id: `inv-${p}-${String(k).padStart(4, "0")}`,
        participantAddress,
        ordinal: k,
      });
      const phase = (["admitted", "dispatched", "settled"] as const)[k % 3] ?? "admitted";
      const action = toolAction(inv, 1, phase === "settled" ? { phase, settlement: "succeeded" } : { phase });
      await store.openInvocation(inv, scheduler({ participantAddress, attempts: k, nextOrdinal: k + 1 }));
      await store.insertToolAction(action);
      invocations.push(inv);
      actions.push(action);
    }
  }
  return { invocations, actions };
}

/** Set-based recovery reads and batched recovery commits, for many invocations of several participants. */
export function recoveryCases(fixture: FixtureSource): void {
  it("lists the tool actions of running invocations only, by invocation then admission order", async () => {
    const { store } = fixture();
    const a = invocation({ id: "inv-b" });
    const b = invocation({ id: "inv-a", participantAddress: P2 });
    const done = invocation({ id: "inv-c", ordinal: 2 });
    for (const inv of [a, b, done]) {
      await store.openInvocation(inv, scheduler({ participantAddress: inv.participantAddress }));
    }
    const actions = [toolAction(a, 2), toolAction(a, 1, { phase: "dispatched" }), toolAction(b, 1)];
    for (const action of [...actions, toolAction(done, 1)]) await store.insertToolAction(action);
    await store.commitInvocation(closeCommit(done));
    const [a2, a1, b1] = actions;
    assert.deepEqual(await store.listOpenToolActions(), [b1, a1, a2]);
    assert.deepEqual(await store.listOpenToolActions(P1), [a1, a2]);
    assert.deepEqual(await store.listOpenToolActions(P3), []);
  });

  it("recovers many interrupted invocations of several participants: withheld, indeterminate, kept", async () => {
    const { store } = fixture();
    const { invocations } = await interrupted(store, PER_PARTICIPANT);
    const fences = new Map<string, { participantAddress: string; token: number }>();
    for (const p of PARTICIPANTS) {
      const lease = await store.acquireLease(p, "owner-1", 60_000);
      assert.ok(lease);
      fences.set(p, { participantAddress: p, token: lease.token });
    }
    const recovered = await recoverInterruptedInvocations(store, {
      participants: new Set(PARTICIPANTS),
      now: () => "2025-01-01T00:01:00.000Z",
      fenceFor: (p) => fences.get(p),
      policyOf: () => undefined,
      frameOf: () => FRAME,
    });
    assert.equal(recovered.length, invocations.length);
    // Each participant's scheduler stops once, at its first indeterminate action, however many follow.
    assert.deepEqual(
      recovered.filter((r) => r.stopped).map((r) => r.participantAddress),
      [...PARTICIPANTS].sort((a, b) => a.localeCompare(b)),
    );
    assert.deepEqual(await store.listOpenInvocations(), []);
    assert.deepEqual(await store.listOpenToolActions(), []);
    for (const [p, participantAddress] of PARTICIPANTS.entries()) {
      const settled = await store.listToolActions({ participantAddress });
      assert.equal(settled.length, PER_PARTICIPANT);
      for (const action of settled) {
        const k = Number(action.invocationId.split("-")[2]);
        const expected = (["withheld", "indeterminate", "succeeded"] as const)[k % 3];
        assert.equal(action.phase, "settled");
        assert.equal(action.settlement, expected, `${action.id} of participant ${p}`);
      }
      // An indeterminate action stops the participant.
      const after = await store.getScheduler(participantAddress, scheduler().policyAddress);
      assert.equal(after?.lifecycle, "stopped");
      assert.equal(after?.stopReason, "tool_action_indeterminate");
      // Each participant's events: one triple per tool action, in its invocations' order.
      const events = await store.listEvents({ participantAddress });
      const expected = invocations
        .filter((i) => i.participantAddress === participantAddress)
        .flatMap((i) => Array<string>(3).fill(`${i.id}.tool-1`));
      assert.deepEqual(
        events.map((e) => e.action_instance_id),
        expected,
        `events of participant ${p}`,
      );
    }
    const sequences = (await store.listEvents()).map((e) => e.sequence);
    assert.deepEqual(
      sequences,
      sequences.map((_, i) => i + 1),
      "sequence numbers are commit order without gaps",
    );
    const again = await recoverInterruptedInvocations(store, {
      participants: new Set(PARTICIPANTS),
      now: () => "2025-01-01T00:02:00.000Z",
      fenceFor: (p) => fences.get(p),
      policyOf: () => undefined,
      frameOf: () => FRAME,
    });
    assert.deepEqual(again, [], "running it twice changes nothing");
  });

  it("refuses a many-invocation batch whose last invocation is closed, or whose fence is stale, writing nothing", async () => {
    const { store } = fixture();
    const { invocations } = await interrupted(store, PER_PARTICIPANT);
    const ofP1 = invocations.filter((i) => i.participantAddress === P1);
    const last = ofP1.at(-1);
    assert.ok(last);
    await store.commitInvocation(closeCommit(last));
    const before = await store.listEvents();
    await assert.rejects(store.commitInvocations(ofP1.map((i) => closeCommit(i))), StoreConflictError);
    assert.deepEqual(await store.listEvents(), before);
    assert.equal((await store.listOpenInvocations(P1)).length, PER_PARTICIPANT - 1);
    const lease = await store.acquireLease(P2, "owner-1", 60_000);
    assert.ok(lease);
    const ofP2 = invocations.filter((i) => i.participantAddress === P2).map((i) => closeCommit(i));
    const stale = { participantAddress: P2, token: lease.token + 1 };
    await assert.rejects(store.commitInvocations(ofP2, stale), LeaseLostError);
    assert.deepEqual(await store.listEvents(), before);
    assert.equal((await store.listOpenInvocations(P2)).length, PER_PARTICIPANT);
  });
}
