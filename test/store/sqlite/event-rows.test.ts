import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { verifyStore } from "../../../src/evidence/index.js";
import type { HistoryEventDraft } from "../../../src/history/index.js";
import { type ChainAnchor, chainGenesis } from "../../../src/records/index.js";
import {
  type InvocationCommit,
  type InvocationRecord,
  openControlPlaneStore,
} from "../../../src/store/index.js";
import {
  EventRowPipeline,
  type PipelineOptions,
  PREPARE_APART_FROM,
  prepareEventRows,
} from "../../../src/store/sqlite/event-rows/index.js";
import { SqliteControlPlaneStore } from "../../../src/store/sqlite/index.js";
import { clock, closeCommit, invocation, P1, P2, scheduler, triple } from "../records.js";

const dir = mkdtempSync(join(tmpdir(), "raes-event-rows-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const ANCHOR: ChainAnchor = { scenario_digest: "sha256:scenario", manifest_digest: "sha256:manifest" };
/** Closes per participant: together past the size from which a worker prepares the rows. */
const PER_PARTICIPANT = PREPARE_APART_FROM / 2 + 100;
const SEED = join(dir, "seed.db");
const fixture = (name: string) =>
  pathToFileURL(fileURLToPath(new URL(`../../fixtures/event-rows/${name}`, import.meta.url))).href;

/** Two participants' interrupted invocations, interleaved; P1 already has history, P2 none. */
function openInvocations(): InvocationRecord[] {
  const open: InvocationRecord[] = [];
  for (let k = 1; k <= PER_PARTICIPANT; k += 1) {
    for (const [p, participantAddress] of [P1, P2].entries()) {
      open.push(
        invocation({ id: `inv-p${p + 1}-${String(k).padStart(5, "0")}`, participantAddress, ordinal: k + 1 }),
      );
    }
  }
  return open;
}

before(async () => {
  const store = SqliteControlPlaneStore.open(`sqlite:${SEED}`, SEED);
  try {
    const first = invocation({ id: "inv-p1-00000", participantAddress: P1, ordinal: 1 });
    await store.openInvocation(first, scheduler({ participantAddress: P1 }));
    await store.commitInvocation({ ...closeCommit(first), anchor: ANCHOR });
    // One event-loop turn: the group commit writes them in one transaction.
    await Promise.all(
      openInvocations().map((inv) =>
        store.openInvocation(inv, scheduler({ participantAddress: inv.participantAddress })),
      ),
    );
  } finally {
    await store.close();
  }
});

/** The closes of one recovery-sized commit, the two participants' interleaved. */
function closes(): InvocationCommit[] {
  return openInvocations().map((inv) => ({ ...closeCommit(inv), anchor: ANCHOR }));
}

/** Blocks this thread, as a slow generator of closes would. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The closes, then a pause in which a worker answers every job before the transaction begins. */
function* closesThenPause(): Generator<InvocationCommit> {
  yield* closes();
  pause(1_000);
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

let copies = 0;
async function committed(
  prepareEventsApart: boolean,
  commitsOf: (file: string) => Iterable<InvocationCommit>,
): Promise<{ rows: unknown; apart: number }> {
  copies += 1;
  const file = join(dir, `store-${copies}.db`);
  copyFileSync(SEED, file);
  const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file, { prepareEventsApart });
  try {
    await store.commitInvocations(commitsOf(file));
    return { rows: history(file), apart: store.eventsPreparedApart };
  } finally {
    await store.close();
  }
}

const EVENTS = 3 * 2 * PER_PARTICIPANT;

describe("a recovery-sized SQLite commit's event rows, prepared on a worker thread", () => {
  it("are the rows the committing thread writes alone, byte for byte, chains continued and started", async () => {
    const alone = await committed(false, closesThenPause);
    const apart = await committed(true, closesThenPause);
    assert.equal(alone.apart, 0);
    assert.ok(apart.apart > 0, "the worker's rows were used");
    assert.deepEqual(apart.rows, alone.rows);
    assert.equal((apart.rows as { events: unknown[] }).events.length, 3 + EVENTS);
  });

  it("prepares nothing apart when openControlPlaneStore is told prepareEventsApart: false", async () => {
    copies += 1;
    const file = join(dir, `store-${copies}.db`);
    copyFileSync(SEED, file);
    const store = await openControlPlaneStore(`sqlite:${file}`, { prepareEventsApart: false });
    try {
      await store.commitInvocations(closesThenPause());
      assert.ok(store instanceof SqliteControlPlaneStore);
      assert.equal(store.eventsPreparedApart, 0);
    } finally {
      await store.close();
    }
  });

  it("prepares nothing apart below the size that pays for a thread", async () => {
    const few = () => closes().slice(0, PREPARE_APART_FROM - 1);
    const alone = await committed(false, few);
    const apart = await committed(true, few);
    assert.equal(apart.apart, 0);
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
    function* withNote(): Generator<InvocationCommit> {
      for (const [i, commit] of closes().entries()) {
        yield i === odd
          ? {
              ...commit,
              events: commit.events.map(
                (draft) => ({ ...draft, note: new Note("kept") }) as HistoryEventDraft,
              ),
            }
          : commit;
      }
      pause(1_000);
    }
    const alone = await committed(false, withNote);
    const apart = await committed(true, withNote);
    assert.ok(apart.apart > 0 && apart.apart <= 3 * odd, `${apart.apart} rows from the worker`);
    assert.deepEqual(apart.rows, alone.rows);
  });

  it("uses no answer when another writer appends between the closes' taking and the commit", async () => {
    function* racing(file: string): Generator<InvocationCommit> {
      yield* closesThenPause();
      // Another connection moves the sequence after every close was sent to the worker.
      const db = new Database(file);
      db.prepare(
        "INSERT INTO history_events (sequence, participant_address, episode_id, action_instance_id, body) VALUES (1000000, 'participant:other', 'e', 'a', '{}')",
      ).run();
      db.close();
    }
    const alone = await committed(false, racing);
    const apart = await committed(true, racing);
    assert.equal(apart.apart, 0, "the prediction no longer held: every row was prepared here");
    assert.deepEqual(apart.rows, alone.rows);
  });
});

describe("a recovery-sized SQLite commit against a hostile caller", () => {
  it("prepares here every close changed after it was handed over, while its commit waited for the turn's end", async () => {
    const changed = PREPARE_APART_FROM + 52;
    async function commitThenChange(prepareEventsApart: boolean): Promise<unknown> {
      copies += 1;
      const file = join(dir, `store-${copies}.db`);
      copyFileSync(SEED, file);
      const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file, { prepareEventsApart });
      try {
        const all = closes();
        // A write first in this turn: the commit waits in the group commit for the turn's end.
        const first = store.saveClock(clock());
        const commit = store.commitInvocations(all);
        const events = all[changed]?.events as HistoryEventDraft[];
        events.push({ ...(events[0] as HistoryEventDraft), event_id: "added-after-the-call" });
        await first;
        await commit;
        const verdict = await verifyStore(store);
        assert.equal(verdict.ok, true, JSON.stringify(verdict).slice(0, 400));
        return history(file);
      } finally {
        await store.close();
      }
    }
    assert.deepEqual(await commitThenChange(true), await commitThenChange(false));
  });

  it("leaves a close nested past what any writer seals to the committing thread", async () => {
    const deep = PREPARE_APART_FROM + 10;
    let nested: unknown = "bottom";
    for (let i = 0; i < 1500; i += 1) nested = [nested];
    function* withDeep(): Generator<InvocationCommit> {
      for (const [i, commit] of closes().entries()) {
        yield i === deep
          ? { ...commit, events: commit.events.map((d) => ({ ...d, nested }) as HistoryEventDraft) }
          : commit;
      }
      pause(1_000);
    }
    // Its worker's stack is deeper than the writer's: whether such a close commits must not depend on who prepares it.
    const alone = await committed(false, withDeep);
    const apart = await committed(true, withDeep);
    assert.ok(apart.apart <= 3 * deep, `${apart.apart} rows from the worker`);
    assert.deepEqual(apart.rows, alone.rows);
  });

  it("ends its worker thread when a close cannot be taken after the worker started", async () => {
    const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);
    const before = threads();
    function* failing(): Generator<InvocationCommit> {
      yield* closes();
      throw new Error("no scheduler record for this close");
    }
    copies += 1;
    const file = join(dir, `store-${copies}.db`);
    copyFileSync(SEED, file);
    const store = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
    try {
      for (let round = 0; round < 3; round += 1) {
        await assert.rejects(async () => store.commitInvocations(failing()), /no scheduler record/);
      }
      for (let waited = 0; threads() > before; waited += 50) {
        assert.ok(waited < 30_000, `threads ${threads()} after, ${before} before`);
        await sleep(50);
      }
    } finally {
      await store.close();
    }
  });

  it("reads where code generation from strings is disallowed", () => {
    const script = `
      import { SqliteControlPlaneStore } from ${JSON.stringify(new URL("../../../src/store/sqlite/index.ts", import.meta.url).href)};
      const store = SqliteControlPlaneStore.open("sqlite:${SEED}", ${JSON.stringify(SEED)}, { readOnly: true });
      console.log((await store.listOpenInvocations()).length);
      await store.close();`;
    const run = spawnSync(
      process.execPath,
      ["--disallow-code-generation-from-strings", "--import", "tsx", "--input-type=module", "-e", script],
      { encoding: "utf8", timeout: 120_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), String(2 * PER_PARTICIPANT));
  });
});

describe("the event-row pipeline", () => {
  const previous = (p: string, anchor: ChainAnchor) => chainGenesis(p, anchor);
  const closesOf = (count: number) =>
    Array.from({ length: count }, (_, k) => triple(invocation({ id: `inv-${k}`, ordinal: k + 1 })));
  /** Three jobs' worth of closes (64 a job), one participant. */
  const jobs = closesOf(3 * 64);

  /**
   * Starts a pipeline predicting `lastSequence`, sends it `closes`, waits until its thread posted
   * `answers` answers, runs `body`, and stops it.
   */
  async function withPipeline(
    setup: {
      closes?: readonly HistoryEventDraft[][];
      lastSequence?: number;
      answers: number;
      options?: PipelineOptions;
    },
    body: (pipeline: EventRowPipeline) => void,
  ): Promise<void> {
    const pipeline = EventRowPipeline.start(
      { lastSequence: setup.lastSequence ?? 0, previous },
      setup.options,
    );
    assert.ok(pipeline);
    try {
      for (const events of setup.closes ?? jobs) pipeline.add(events, ANCHOR);
      pipeline.flush();
      for (let waited = 0; pipeline.answers < setup.answers; waited += 20) {
        assert.ok(waited < 60_000, "the worker answered");
        await sleep(20);
      }
      body(pipeline);
    } finally {
      pipeline.close();
    }
  }

  /** Every event's row, in order, as the writer asks for them. */
  const rowsOf = (pipeline: EventRowPipeline, closes = jobs) => closes.flat().map(() => pipeline.next());

  it("hands each event the row the same functions give here, once the thread has answered", () =>
    withPipeline({ lastSequence: 7, answers: 3 }, (pipeline) => {
      assert.equal(pipeline.confirm(7, previous), true);
      const here = prepareEventRows(
        { index: 0, closes: jobs, firstSequence: 8, previous: [[P1, previous(P1, ANCHOR)]] },
        new Map(),
      );
      const rows = rowsOf(pipeline);
      assert.deepEqual(
        rows.map((r) => r?.body),
        here.bodies,
      );
      assert.deepEqual(
        rows.map((r) => r?.digest),
        here.digests,
      );
      assert.equal(pipeline.next(), undefined, "nothing after the closes sent");
    }));

  it("refuses every answer when the sequence moved before the transaction", () =>
    withPipeline({ lastSequence: 7, answers: 3 }, (pipeline) => {
      assert.equal(pipeline.confirm(8, previous), false);
      assert.equal(pipeline.next(), undefined);
    }));

  it("never waits for a thread that has not answered yet: the writer takes those jobs", () =>
    // A stall bound of ten minutes: returning at all shows nothing was waited for.
    withPipeline(
      { answers: 0, options: { entry: fixture("starts-late.ts"), stallMs: 600_000 } },
      (pipeline) => {
        assert.equal(pipeline.confirm(0, previous), true);
        assert.deepEqual(
          rowsOf(pipeline),
          jobs.flat().map(() => undefined),
        );
      },
    ));

  it("answers nothing, without waiting its stall bound, when the worker's module cannot load", () =>
    withPipeline(
      {
        answers: 1,
        options: { entry: pathToFileURL(join(dir, "no-such-module.js")).href, stallMs: 600_000 },
      },
      (pipeline) => {
        assert.equal(pipeline.confirm(0, previous), true);
        assert.equal(pipeline.next(), undefined);
        assert.equal(pipeline.next(), undefined);
      },
    ));

  it("bounds the writer's waiting for a slow thread in all, not job by job", () => {
    const many = closesOf(10 * 64);
    return withPipeline(
      { closes: many, answers: 1, options: { entry: fixture("answers-slowly.ts"), stallMs: 500 } },
      (pipeline) => {
        assert.equal(pipeline.confirm(0, previous), true);
        const rows = rowsOf(pipeline, many);
        assert.ok(rows[0] !== undefined, "the first job's answer was used");
        // Ten jobs at 200 ms each: waiting for every one would take about 1.8 s, past the 0.5 s bound.
        assert.ok(
          rows.slice(-3 * 64).every((r) => r === undefined),
          "the last job was the writer's",
        );
      },
    );
  });

  it("gives up on a thread that stops answering mid-way once the stall bound passes", () =>
    withPipeline({ answers: 1, options: { entry: fixture("answers-once.ts"), stallMs: 300 } }, (pipeline) => {
      assert.equal(pipeline.confirm(0, previous), true);
      const rows = rowsOf(pipeline);
      assert.equal(rows.filter((r) => r !== undefined).length, 3 * 64, "the first job's rows");
      assert.ok(rows.slice(3 * 64).every((r) => r === undefined));
    }));
});
