import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import pg from "pg";
import type { ResourceBudgetEventRecord, ResourceLedger } from "../../src/records/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { adminQuery, freshSchema, POSTGRES_TEST_URL, postgresAvailable } from "./pg-available.js";
import { P1, P2, scheduler } from "./records.js";

const available = await postgresAvailable("postgres budget events");
const dropAtEnd: (() => Promise<void>)[] = [];
after(async () => {
  for (const drop of dropAtEnd) await drop();
});

/** A ledger whose one transition (seq 1) is a throttle of `operationId`. */
function throttled(operationId: string): ResourceLedger {
  return {
    generation: 1,
    budgets: {},
    log: [
      {
        seq: 1,
        transition: "throttle",
        operationId,
        tick: 1,
        segment: 0,
        generation: 1,
        requested: { images: 1 },
        code: "runtime.participant-resource-throttled",
        capacityKind: "logical budget",
      },
    ],
    logged: 1,
    events: 1,
  };
}

/** The scheduler upsert every store write is, of the stored row with a new ledger (the trigger sees it). */
async function upsertSql(schema: string): Promise<string> {
  const rows = await adminQuery<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'schedulers'
     AND is_identity = 'NO' AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    [schema],
  );
  const columns = rows.map((r) => r.column_name);
  const values = columns.map((c) => (c === "resources" ? "$2::text" : `s.${c}`));
  return `INSERT INTO schedulers (${columns.join(", ")}) SELECT ${values.join(", ")} FROM schedulers AS s
    WHERE participant_address = $1
    ON CONFLICT (participant_address, policy_address) DO UPDATE SET resources = excluded.resources`;
}

async function connect(schema: string, name: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL, application_name: name });
  await client.connect();
  await client.query(`SET search_path TO ${schema}`);
  return client;
}

/** Polls (no deadline assertion) until `done` or a backend with this application_name waits on a lock. */
async function blockedOrDone(applicationName: string, done: () => boolean): Promise<void> {
  for (;;) {
    if (done()) return;
    const rows = await adminQuery(
      "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
      [applicationName],
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

if (!available) {
  it("postgres budget events", { skip: "POSTGRES UNAVAILABLE" }, () => undefined);
} else {
  describe("postgres budget events are paged in commit order", () => {
    it("a pager reading --after N between two concurrent writers misses neither event", async () => {
      const { schema, url, drop } = freshSchema();
      dropAtEnd.push(drop);
      const store = await openControlPlaneStore(url);
      const a = await connect(schema, `${schema}_a`);
      const b = await connect(schema, `${schema}_b`);
      try {
        await store.saveScheduler(scheduler({ participantAddress: P1 }));
        await store.saveScheduler(scheduler({ participantAddress: P2 }));
        const UPSERT = await upsertSql(schema);
        // Writer A takes its event's place first and holds its transaction open.
        await a.query("BEGIN");
        await a.query(UPSERT, [P1, JSON.stringify(throttled("a-1"))]);
        // Writer B writes another schedule's event in one statement, after A.
        let bDone = false;
        const bWrite = b.query(UPSERT, [P2, JSON.stringify(throttled("b-1"))]).then(() => {
          bDone = true;
        });
        await blockedOrDone(`${schema}_b`, () => bDone);
        // A pager reads the first page now, then pages on from where it stopped.
        const seen: ResourceBudgetEventRecord[] = [];
        let cursor = 0;
        const page = async () => {
          for (;;) {
            const rows = await store.listBudgetEvents({ afterSequence: cursor, limit: 10 });
            if (rows.length === 0) return;
            seen.push(...rows);
            cursor = rows.at(-1)?.sequence ?? cursor;
          }
        };
        await page();
        await a.query("COMMIT");
        await bWrite;
        await page();
        assert.deepEqual(seen.map((e) => e.entry.operationId).sort(), ["a-1", "b-1"]);
        assert.equal(await store.countBudgetEvents(), 2);
      } finally {
        await a.end();
        await b.end();
        await store.close();
      }
    });
  });
}
