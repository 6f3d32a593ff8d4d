import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { HistoryEventDraft } from "../../src/records/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import type { ControlPlaneStore, InvocationCommit } from "../../src/store/types.js";
import { freshSchema, postgresAvailable } from "./pg-available.js";
import { closeCommit, event, invocation, scheduler } from "./records.js";

const available = await postgresAvailable("postgres batched closes");
const dir = mkdtempSync(join(tmpdir(), "raes-pg-batch-"));
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

// More closes than one statement takes (src/store/postgres/batch.ts: 500), so the events are linked
// both while the slices' statements run and while the COPY runs.
const CLOSES = 600;

/** The open invocations and their closes, each with the outer triple. */
function closes(): InvocationCommit[] {
  return Array.from({ length: CLOSES }, (_, ordinal) =>
    closeCommit(invocation({ id: `inv-${String(ordinal).padStart(5, "0")}`, ordinal })),
  );
}

async function opened(url: string, commits: readonly InvocationCommit[]): Promise<ControlPlaneStore> {
  const store = await openControlPlaneStore(url);
  cleanups.unshift(() => store.close());
  for (const { invocation: inv } of commits) {
    await store.openInvocation({ ...inv, state: "running" }, scheduler({ nextOrdinal: inv.ordinal + 1 }));
  }
  return store;
}

if (!available) {
  it("postgres batched closes", { skip: "POSTGRES UNAVAILABLE" }, () => undefined);
} else {
  describe("postgres: closes of several statements in one transaction", () => {
    it("numbers and chains every event as SQLite does, across statements and the COPY", async () => {
      const commits = closes();
      const place = freshSchema("raes_batch");
      cleanups.push(place.drop);
      const postgres = await opened(place.url, commits);
      const sqlite = await opened(`sqlite:${join(dir, "same.db")}`, commits);
      await postgres.commitInvocations(commits, undefined);
      await sqlite.commitInvocations(commits, undefined);
      const events = await postgres.listEvents();
      assert.equal(events.length, 3 * CLOSES);
      assert.deepEqual(
        events.map((e) => e.sequence),
        events.map((_, i) => i + 1),
      );
      // Each store links its events by itself; the same drafts give the same digests.
      assert.deepEqual(events, await sqlite.listEvents());
      assert.equal((await postgres.listOpenInvocations()).length, 0);
    });

    it("writes nothing when an event late in the batch cannot be written, and stays usable", async () => {
      const commits = closes();
      const place = freshSchema("raes_batch_broken");
      cleanups.push(place.drop);
      const store = await opened(place.url, commits);
      const last = commits.at(-1) as InvocationCommit;
      const broken: InvocationCommit = {
        ...last,
        // A value JSON cannot hold (the drafts' type rules it out; a caller's bug could still pass one).
        events: [{ ...event(last.invocation, "action_attempted"), unwritable: 1n } as HistoryEventDraft],
      };
      await assert.rejects(store.commitInvocations([...commits.slice(0, -1), broken], undefined), /BigInt/);
      assert.deepEqual(await store.listEvents(), []);
      assert.equal((await store.listOpenInvocations()).length, CLOSES);
      await store.commitInvocations(commits, undefined);
      assert.equal((await store.listEvents()).length, 3 * CLOSES);
    });

    it("leaves no timer running once the COPY is over, so the process can exit", async () => {
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
      const before = timers();
      const commits = closes().slice(0, 2);
      const place = freshSchema("raes_batch_timers");
      cleanups.push(place.drop);
      const store = await openControlPlaneStore(place.url);
      for (const { invocation: inv } of commits)
        await store.openInvocation({ ...inv, state: "running" }, scheduler());
      await store.commitInvocations(commits, undefined);
      await store.close();
      // The driver's query timeout timer of the COPY (the store sets one) is cleared when it ends.
      assert.equal(timers(), before);
    });
  });
}
