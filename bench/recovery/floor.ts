/**
 * The recovery bench's full floor: what a recovery writes, taken from a store that raes-ts has just
 * recovered, written by hand with the same driver and durability into an identical store that has not
 * been recovered, after the same raw reads. The rows are the ones raes-ts wrote (same bytes, same
 * indexes), so the floor leaves out only raes-ts's own work: mapping, settling, building and packing
 * events, fencing. Its time is what any implementation of this schema pays on this machine.
 */

import { hash } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import Database from "better-sqlite3";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import {
  INVOCATION_CLOSE_COLUMNS,
  SCHEDULER_COLUMNS,
  TOOL_ACTION_SETTLE_COLUMNS,
} from "../../src/store/sql/columns.js";

const CLOSE = INVOCATION_CLOSE_COLUMNS.map(([name]) => name);
const SETTLE = TOOL_ACTION_SETTLE_COLUMNS.map(([name]) => name);
const SCHEDULER = SCHEDULER_COLUMNS.map(([name]) => name);
const SCHEDULER_KEY = ["participant_address", "policy_address"];
const SCHEDULER_SET = SCHEDULER.filter((c) => !SCHEDULER_KEY.includes(c));
const EVENT = ["participant_address", "episode_id", "action_instance_id", "body", "chain_digest"];
// Each participant's chain head, which every commit of events moves (docs/evidence-format.md).
const CHAIN = [
  "participant_address",
  "scenario_digest",
  "manifest_digest",
  "head_digest",
  "head_sequence",
  "events",
  "backfilled_at",
];
const OPEN_INVOCATIONS = "SELECT * FROM invocations WHERE state = 'running'";
const OPEN_ACTIONS =
  "SELECT t.* FROM invocations i JOIN tool_actions t ON t.invocation_id = i.id WHERE i.state = 'running'";

type Row = Record<string, unknown>;

/** The rows a recovery changed or added, as stored. */
export interface RecoveryWrites {
  readonly invocations: readonly Row[];
  readonly toolActions: readonly Row[];
  readonly events: readonly Row[];
  readonly schedulers: readonly Row[];
  /** Every participant's chain head after the recovery. */
  readonly chains: readonly Row[];
}

/** A floor's time, split into its raw reads and its writes with their commit. */
export interface FloorTime {
  readonly readMs: number;
  readonly writeMs: number;
  /** Rows the raw reads returned: every open invocation and its tool actions. */
  readonly rowsRead: number;
  /** Rows the writes changed or added, to be checked against the writes' own count. */
  readonly rowsWritten: number;
}

/** How many rows writing `writes` changes or adds. */
export function rowCount(writes: RecoveryWrites): number {
  return (
    writes.invocations.length +
    writes.toolActions.length +
    writes.events.length +
    writes.schedulers.length +
    writes.chains.length
  );
}

const pick = (columns: readonly string[]) => `SELECT id, ${columns.join(", ")}`;

/**
 * The least a writer of these rows computes on its one thread beyond the floor, timed: each event's
 * JSON text and its SHA-256 after its participant's previous digest. The history format needs the
 * chain digest of every event over its RFC 8785 text (docs/evidence-format.md), which costs more than
 * `JSON.stringify`'s text measured here; building, settling and packing the events are left out too.
 * On SQLite, `(floor + ms) ÷ floor` is a ratio no recovery reaches on one thread. `history` is
 * the recovered history as `raes history --json` prints it.
 */
export function chaining(history: readonly object[]): Chaining {
  const events = history.map((event) => {
    const { chain_digest: _digest, ...rest } = event as Record<string, unknown>;
    return rest;
  });
  const previous = new Map<unknown, string>();
  let bytes = 0;
  const start = performance.now();
  for (const event of events) {
    const text = JSON.stringify(event);
    bytes += text.length;
    const before = previous.get(event.participant_address) ?? "";
    previous.set(event.participant_address, `sha256:${hash("sha256", before + text)}`);
  }
  return { ms: performance.now() - start, events: events.length, characters: bytes };
}

/** What `chaining` timed: how long, over how many events, and the characters of their texts. */
export interface Chaining {
  readonly ms: number;
  readonly events: number;
  readonly characters: number;
}

/** What recovery wrote into the SQLite store at `path`: closed invocations, recovered actions, all events. */
export function sqliteRecoveryWrites(path: string): RecoveryWrites {
  const db = new Database(path, { readonly: true });
  try {
    return {
      invocations: db
        .prepare(`${pick(CLOSE)} FROM invocations WHERE recovered_at IS NOT NULL ORDER BY id`)
        .all() as Row[],
      toolActions: db
        .prepare(`${pick(SETTLE)} FROM tool_actions WHERE recovered_at IS NOT NULL ORDER BY id`)
        .all() as Row[],
      events: db.prepare(`SELECT ${EVENT.join(", ")} FROM history_events ORDER BY sequence`).all() as Row[],
      schedulers: db
        .prepare(
          `SELECT ${SCHEDULER.join(", ")} FROM schedulers ORDER BY participant_address, policy_address`,
        )
        .all() as Row[],
      chains: db
        .prepare(`SELECT ${CHAIN.join(", ")} FROM history_chains ORDER BY participant_address`)
        .all() as Row[],
    };
  } finally {
    db.close();
  }
}

/** Times the raw reads, then the same writes in one `BEGIN IMMEDIATE` transaction, at WAL and FULL. */
export function sqliteFloor(path: string, writes: RecoveryWrites): FloorTime {
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    const close = db.prepare(
      `UPDATE invocations SET ${CLOSE.map((c) => `${c} = @${c}`).join(", ")} WHERE id = @id AND state = 'running'`,
    );
    const settle = db.prepare(
      `UPDATE tool_actions SET ${SETTLE.map((c) => `${c} = @${c}`).join(", ")} WHERE id = @id`,
    );
    const append = db.prepare(
      `INSERT INTO history_events (${EVENT.join(", ")}) VALUES (${EVENT.map((c) => `@${c}`).join(", ")})`,
    );
    const scheduler = db.prepare(
      `UPDATE schedulers SET ${SCHEDULER_SET.map((c) => `${c} = @${c}`).join(", ")}
       WHERE participant_address = @participant_address AND policy_address = @policy_address`,
    );
    const chain = db.prepare(
      `INSERT INTO history_chains (${CHAIN.join(", ")}) VALUES (${CHAIN.map((c) => `@${c}`).join(", ")})
       ON CONFLICT (participant_address) DO UPDATE SET ${CHAIN.slice(1)
         .map((c) => `${c} = excluded.${c}`)
         .join(", ")}`,
    );
    const start = performance.now();
    const rowsRead = db.prepare(OPEN_INVOCATIONS).all().length + db.prepare(OPEN_ACTIONS).all().length;
    const read = performance.now();
    let rowsWritten = 0;
    db.transaction(() => {
      for (const row of writes.invocations) rowsWritten += close.run(row).changes;
      for (const row of writes.toolActions) rowsWritten += settle.run(row).changes;
      for (const row of writes.events) rowsWritten += append.run(row).changes;
      for (const row of writes.schedulers) rowsWritten += scheduler.run(row).changes;
      for (const row of writes.chains) rowsWritten += chain.run(row).changes;
    }).immediate();
    return { readMs: read - start, writeMs: performance.now() - read, rowsRead, rowsWritten };
  } finally {
    db.close();
  }
}

/** What recovery wrote into the PostgreSQL store schema, bodies as their stored JSON text. */
export async function pgRecoveryWrites(url: string, schema: string): Promise<RecoveryWrites> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    const rows = async (sql: string) => (await client.query(sql)).rows as Row[];
    return {
      invocations: await rows(`${pick(CLOSE)} FROM invocations WHERE recovered_at IS NOT NULL ORDER BY id`),
      toolActions: await rows(`${pick(SETTLE)} FROM tool_actions WHERE recovered_at IS NOT NULL ORDER BY id`),
      events: await rows(
        "SELECT participant_address, episode_id, action_instance_id, body::text AS body, chain_digest FROM history_events ORDER BY sequence",
      ),
      schedulers: await rows(
        `SELECT ${SCHEDULER.join(", ")} FROM schedulers ORDER BY participant_address, policy_address`,
      ),
      chains: await rows(
        `SELECT ${CHAIN.map((c) => `${c}::text AS ${c}`).join(", ")} FROM history_chains ORDER BY participant_address`,
      ),
    };
  } finally {
    await client.end();
  }
}

/** Closes and settlements per statement: the same slices the store sends. */
const SLICE = 500;

function slices<T>(rows: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

// Every cell arrives as text (a JSON cell as its JSON text) and is cast to its column's type.
const recordset = (columns: readonly string[]) =>
  `json_to_recordset($1::json) AS t(id text, ${columns.map((c) => `${c} text`).join(", ")})`;

/**
 * Times the raw reads, then the same writes in one read-committed transaction: set-based updates from
 * a JSON recordset (`unnest` of text arrays measured slower) and the events by COPY.
 */
export async function pgFloor(url: string, schema: string, writes: RecoveryWrites): Promise<FloorTime> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    const types = await columnTypes(client);
    const start = performance.now();
    const rowsRead =
      (await client.query(OPEN_INVOCATIONS)).rows.length + (await client.query(OPEN_ACTIONS)).rows.length;
    const read = performance.now();
    let rowsWritten = 0;
    const write = async (sql: string, values: unknown[]) => {
      rowsWritten += (await client.query(sql, values)).rowCount ?? 0;
    };
    await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
    for (const slice of slices(writes.invocations, SLICE)) {
      await write(
        `UPDATE invocations AS i SET ${CLOSE.map((c) => `${c} = t.${c}::${types.get(`invocations.${c}`)}`).join(", ")}
         FROM ${recordset(CLOSE)} WHERE i.id = t.id AND i.state = 'running'`,
        [JSON.stringify(slice)],
      );
    }
    for (const slice of slices(writes.toolActions, SLICE)) {
      await write(
        `UPDATE tool_actions AS a SET ${SETTLE.map((c) => `${c} = t.${c}::${types.get(`tool_actions.${c}`)}`).join(", ")}
         FROM ${recordset(SETTLE)} WHERE a.id = t.id`,
        [JSON.stringify(slice)],
      );
    }
    rowsWritten += await copyEvents(client, writes.events);
    await write(
      `UPDATE schedulers AS s SET ${SCHEDULER_SET.map((c) => `${c} = t.${c}::${types.get(`schedulers.${c}`)}`).join(", ")}
       FROM json_to_recordset($1::json) AS t(${SCHEDULER.map((c) => `${c} text`).join(", ")})
       WHERE s.participant_address = t.participant_address AND s.policy_address = t.policy_address`,
      [JSON.stringify(writes.schedulers)],
    );
    await write(
      `INSERT INTO history_chains (${CHAIN.join(", ")})
       SELECT ${CHAIN.map((c) => `t.${c}::${types.get(`history_chains.${c}`)}`).join(", ")}
       FROM json_to_recordset($1::json) AS t(${CHAIN.map((c) => `${c} text`).join(", ")})
       ON CONFLICT (participant_address) DO UPDATE SET ${CHAIN.slice(1)
         .map((c) => `${c} = excluded.${c}`)
         .join(", ")}`,
      [JSON.stringify(writes.chains)],
    );
    await client.query("COMMIT");
    return { readMs: read - start, writeMs: performance.now() - read, rowsRead, rowsWritten };
  } finally {
    await client.end();
  }
}

/** COPY's text format of a cell: backslash, newline, carriage return and tab escaped. */
const COPY_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};
const copyCell = (value: unknown) => String(value).replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c] ?? c);

/**
 * Appends the events by COPY FROM STDIN, numbered from the history head it moves (its row lock held
 * to the commit, as the store holds it): the fastest way in with this driver, faster than an INSERT
 * from a JSON array by about half on 3·10⁴ events. The store copies a recovery's events too.
 */
async function copyEvents(client: pg.Client, events: readonly Row[]): Promise<number> {
  const { rows } = await client.query<{ last: number }>(
    "UPDATE history_head SET last_sequence = last_sequence + $1::bigint RETURNING last_sequence AS last",
    [events.length],
  );
  const first = Number(rows[0]?.last) - events.length + 1;
  const lines = function* () {
    for (let i = 0; i < events.length; i += 1_000) {
      let chunk = "";
      for (const [k, event] of events.slice(i, i + 1_000).entries()) {
        chunk += `${first + i + k}\t${EVENT.map((c) => copyCell(event[c])).join("\t")}\n`;
      }
      yield chunk;
    }
  };
  const copy = client.query(copyFrom(`COPY history_events (sequence, ${EVENT.join(", ")}) FROM STDIN`));
  await pipeline(Readable.from(lines()), copy);
  return copy.rowCount;
}

/** Each column's SQL type, by `table.column`, so recordset text casts to what the table holds. */
async function columnTypes(client: pg.Client): Promise<Map<string, string>> {
  const { rows } = await client.query<{ t: string; c: string; type: string }>(
    `SELECT table_name AS t, column_name AS c, data_type AS type FROM information_schema.columns
     WHERE table_schema = current_schema()`,
  );
  return new Map(rows.map((r) => [`${r.t}.${r.c}`, r.type]));
}
