import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import type { HistoryEventDraft } from "../../../src/history/index.js";
import { chainGenesis, UNANCHORED } from "../../../src/records/index.js";
import type { InvocationCommit, InvocationRecord } from "../../../src/store/index.js";
import { EventRowPipeline, PREPARE_APART_FROM } from "../../../src/store/sqlite/event-rows/index.js";
import { SqliteControlPlaneStore } from "../../../src/store/sqlite/index.js";
import { closeCommit, invocation, P1, P2, scheduler, triple } from "../records.js";

const dir = mkdtempSync(join(tmpdir(), "raes-event-rows-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const ANCHOR = { scenario_digest: "sha256:scenario", manifest_digest: "sha256:manifest" };
/** Closes per participant: together well past the size from which a worker prepares the rows. */
const PER_PARTICIPANT = 200;

let files = 0;
function storeFile(prepareEventsApart: boolean): { file: string; store: SqliteControlPlaneStore } {
  files += 1;
  const file = join(dir, `store-${files}.db`);
  return {
    file,
    store: SqliteControlPlaneStore.open(`sqlite:${file}`, file, { prepareEventsApart }),
  };
}

/** Two participants' interrupted invocations, opened alike in every store; P1 already has history. */
async function seeded(store: SqliteControlPlaneStore): Promise<InvocationRecord[]> {
  const first = invocation({ id: "inv-p1-0000", participantAddress: P1, ordinal: 1 });
  await store.openInvocation(first, scheduler({ participantAddress: P1 }));
  await store.commitInvocation({ ...closeCommit(first), anchor: ANCHOR });
  const open: InvocationRecord[] = [];
  for (let k = 1; k <= PER_PARTICIPANT; k += 1) {
    for (const [p, participantAddress] of [P1, P2].entries()) {
      const inv = invocation({
        id: `inv-p${p + 1}-${String(k).padStart(4, "0")}`,
        participantAddress,
        ordinal: k + 1,
      });
      await store.openInvocation(inv, scheduler({ participantAddress, attempts: k, nextOrdinal: k + 2 }));
      open.push(inv);
    }
  }
  return open;
}

/** The closes of one recovery-sized commit, the two participants' interleaved. */
function closes(open: readonly InvocationRecord[]): InvocationCommit[] {
  return open.map((inv) => ({ ...closeCommit(inv), anchor: ANCHOR }));
}

/** Every stored byte a close writes that depends on how its rows were prepared. */
function history(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    return {
      events: db
        .prepare(
          "SELECT sequence, participant_address, body, chain_digest FROM history_events ORDER BY sequence",
        )
        .all(),
      chains: db.prepare("SELECT * FROM history_chains ORDER BY participant_address").all(),
    };
  } finally {
    db.close();
  }
}

async function committed(
  prepareEventsApart: boolean,
  commitsOf: (open: InvocationRecord[], file: string) => Iterable<InvocationCommit>,
): Promise<{ rows: unknown; apart: number }> {
  const { file, store } = storeFile(prepareEventsApart);
  try {
    await store.commitInvocations(commitsOf(await seeded(store), file));
    return { rows: history(file), apart: store.eventsPreparedApart };
  } finally {
    await store.close();
  }
}

describe("a recovery-sized SQLite commit's event rows, prepared on a worker thread", () => {
  it("are the rows the committing thread writes alone, byte for byte, chains continued and started", async () => {
    const alone = await committed(false, closes);
    const apart = await committed(true, closes);
    assert.ok(2 * PER_PARTICIPANT >= PREPARE_APART_FROM);
    assert.equal(alone.apart, 0);
    assert.equal(apart.apart, 3 * 2 * PER_PARTICIPANT, "every event's row came from the worker");
    assert.deepEqual(apart.rows, alone.rows);
  });

  it("leaves a close holding other than plain data, and every close after it, to the committing thread", async () => {
    class Note {
      constructor(readonly text: string) {}
      toJSON() {
        return `note: ${this.text}`;
      }
    }
    const odd = PREPARE_APART_FROM + 10;
    const withNote = (open: InvocationRecord[]) =>
      closes(open).map((commit, i) =>
        i === odd
          ? {
              ...commit,
              events: commit.events.map(
                (draft) => ({ ...draft, note: new Note("kept") }) as HistoryEventDraft,
              ),
            }
          : commit,
      );
    const alone = await committed(false, withNote);
    const apart = await committed(true, withNote);
    assert.equal(apart.apart, 3 * odd, "the worker answered only the closes before it");
    assert.deepEqual(apart.rows, alone.rows);
  });

  it("uses no answer when another writer appends between the closes' taking and the commit", async () => {
    function* racing(open: InvocationRecord[], file: string): Generator<InvocationCommit> {
      const all = closes(open);
      for (const [i, commit] of all.entries()) {
        yield commit;
        if (i === all.length - 1) {
          // Another connection moves the sequence after every close was sent to the worker.
          const db = new Database(file);
          db.prepare(
            "INSERT INTO history_events (sequence, participant_address, episode_id, action_instance_id, body, chain_digest) VALUES (1000000, 'participant:other', 'e', 'a', '{}', NULL)",
          ).run();
          db.close();
        }
      }
    }
    const alone = await committed(false, racing);
    const apart = await committed(true, racing);
    assert.equal(apart.apart, 0, "the prediction no longer held: every row was prepared here");
    assert.deepEqual(apart.rows, alone.rows);
  });

  it("answers nothing, without waiting its stall bound, when the worker's module cannot load", () => {
    const pipeline = EventRowPipeline.start(
      { lastSequence: 0, previous: (p, anchor) => chainGenesis(p, anchor) },
      { entry: pathToFileURL(join(dir, "no-such-module.js")).href, stallMs: 600_000 },
    );
    assert.ok(pipeline);
    try {
      pipeline.add(triple(invocation()), UNANCHORED);
      pipeline.flush();
      assert.equal(
        pipeline.confirm(0, (p, anchor) => chainGenesis(p, anchor)),
        true,
      );
      // A stall bound of ten minutes: answering at all proves the failure was reported, not waited out.
      assert.equal(pipeline.next(), undefined);
      assert.equal(pipeline.next(), undefined);
    } finally {
      pipeline.close();
    }
  });

  it("answers nothing once a worker that never answers outlasts the stall bound", () => {
    const silent = join(dir, "silent.mjs");
    writeFileSync(silent, "setInterval(() => {}, 1000);\n");
    const pipeline = EventRowPipeline.start(
      { lastSequence: 0, previous: (p, anchor) => chainGenesis(p, anchor) },
      { entry: pathToFileURL(silent).href, stallMs: 300 },
    );
    assert.ok(pipeline);
    try {
      pipeline.add(triple(invocation()), UNANCHORED);
      pipeline.flush();
      assert.equal(pipeline.next(), undefined);
    } finally {
      pipeline.close();
    }
  });
});
