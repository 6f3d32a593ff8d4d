import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { verifyParticipantChain, verifyStore } from "../../src/evidence/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { closeCommit, invocation, P1, P2, scheduler } from "../store/records.js";

const DIR = mkdtempSync(join(tmpdir(), "raes-participant-chain-"));
after(() => rmSync(DIR, { recursive: true, force: true }));

describe("one participant's chain recomputed alone (the console's per-participant status)", () => {
  it("verifies each participant whose sequences interleave with another's, and names the edited event of the one broken", async () => {
    const file = join(DIR, "store.db");
    const store = await openControlPlaneStore(`sqlite:${file}`);
    try {
      const closes = [
        invocation({ id: "inv-1", participantAddress: P1, ordinal: 0 }),
        invocation({ id: "inv-2", participantAddress: P2, ordinal: 0 }),
        invocation({ id: "inv-3", participantAddress: P1, ordinal: 1 }),
      ];
      for (const inv of closes)
        await store.openInvocation(inv, scheduler({ participantAddress: inv.participantAddress }));
      for (const inv of closes)
        await store.commitInvocation({
          ...closeCommit(inv as never),
          anchor: { scenario_digest: "s", manifest_digest: "m" },
        });
      for (const p of [P1, P2]) {
        const report = await verifyParticipantChain(store, p, 2);
        assert.equal(report.ok, true, JSON.stringify(report.failure));
      }
      const target = (await store.listEvents({ participantAddress: P1 }))[4];
      assert.ok(target);
      const db = new Database(file);
      db.prepare("UPDATE history_events SET chain_digest = ? WHERE sequence = ?").run(
        `sha256:${"0".repeat(64)}`,
        target.sequence,
      );
      db.close();
      const broken = await verifyParticipantChain(store, P1);
      assert.equal(broken.ok, false);
      assert.equal(broken.failure?.participant_address, P1);
      assert.equal(broken.failure?.sequence, target.sequence);
      assert.equal((await verifyParticipantChain(store, P2)).ok, true);
    } finally {
      await store.close();
    }
  });

  it("reads a participant's rows from before the first sequence, as raes verify does: a row put at 0 is named", async () => {
    const file = join(DIR, "sequence-zero.db");
    const store = await openControlPlaneStore(`sqlite:${file}`);
    try {
      const inv = invocation({ id: "inv-1", participantAddress: P1, ordinal: 0 });
      await store.openInvocation(inv, scheduler({ participantAddress: P1 }));
      await store.commitInvocation({
        ...closeCommit(inv as never),
        anchor: { scenario_digest: "s", manifest_digest: "m" },
      });
      assert.equal((await verifyParticipantChain(store, P1)).ok, true);
      const db = new Database(file);
      db.prepare(
        `INSERT INTO history_events (sequence, participant_address, episode_id, action_instance_id, body, chain_digest)
         SELECT 0, participant_address, episode_id, action_instance_id, body, chain_digest FROM history_events WHERE sequence = 1`,
      ).run();
      db.close();
      const report = await verifyParticipantChain(store, P1, 2);
      assert.equal(report.ok, false);
      assert.deepEqual([report.failure?.kind, report.failure?.sequence], ["inserted", 0]);
    } finally {
      await store.close();
    }
  });
});

// A SQLite store answers every page at once; the console checks chains in the process that serves
// its pages, so a check of a long history must let the event loop run between pages.
describe("a chain check on a store that answers at once", () => {
  it("lets the event loop run between pages, for the whole store and for one participant", async () => {
    const file = join(DIR, "turns.db");
    const store = await openControlPlaneStore(`sqlite:${file}`);
    try {
      const closes = [0, 1, 2].map((ordinal) =>
        invocation({ id: `inv-${ordinal}`, participantAddress: P1, ordinal }),
      );
      for (const inv of closes) await store.openInvocation(inv, scheduler({ participantAddress: P1 }));
      for (const inv of closes) await store.commitInvocation(closeCommit(inv as never));
      const checks: [string, () => Promise<{ ok: boolean }>][] = [
        ["store", () => verifyStore(store, 2)],
        ["participant", () => verifyParticipantChain(store, P1, 2)],
      ];
      for (const [name, check] of checks) {
        let turned = false;
        setImmediate(() => {
          turned = true;
        });
        const report = await check();
        assert.equal(report.ok, true);
        assert.equal(turned, true, `${name}: a turn ran before the check ended`);
      }
    } finally {
      await store.close();
    }
  });
});
