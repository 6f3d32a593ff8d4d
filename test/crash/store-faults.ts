import Database from "better-sqlite3";
import pg from "pg";
import { type ControlPlaneStore, openControlPlaneStore } from "../../src/store/index.js";
import { freshSchema, POSTGRES_TEST_URL } from "../store/pg-available.js";

/** Raw rows, read around the store, to prove a failed write left nothing behind. */
export interface RawRows {
  readonly invocations: unknown[];
  readonly toolActions: unknown[];
  readonly schedulers: unknown[];
  readonly events: number;
}

/** A real store whose writes can be made to fail for real, and healed again. */
export interface FaultyBackend {
  readonly store: ControlPlaneStore;
  /** From now on every write fails the way an unreachable store fails. */
  break(): Promise<void>;
  heal(): Promise<void>;
  rows(): Promise<RawRows>;
  /** PostgreSQL: how many store backends were terminated so far. */
  terminated(): number;
  close(): Promise<void>;
}

// Casts keep PostgreSQL's bigint columns comparable with SQLite's integers.
const INVOCATIONS = "SELECT id, state, CAST(ordinal AS INTEGER) AS ordinal FROM invocations ORDER BY ordinal";
const TOOL_ACTIONS = "SELECT id, phase, settlement FROM tool_actions ORDER BY id";
const SCHEDULERS =
  "SELECT lifecycle, stop_reason, CAST(next_ordinal AS INTEGER) AS next_ordinal, CAST(attempts AS INTEGER) AS attempts FROM schedulers";

/**
 * SQLite: a second connection takes the write lock (`BEGIN IMMEDIATE`), so the store, with a
 * short busy timeout, can read but every write fails with SQLITE_BUSY.
 */
export async function sqliteBackend(file: string): Promise<FaultyBackend> {
  const store = await openControlPlaneStore(`sqlite:${file}`, { busyTimeoutMs: 50 });
  const other = new Database(file);
  const reader = new Database(file, { readonly: true });
  return {
    store,
    break: async () => {
      other.exec("BEGIN IMMEDIATE");
    },
    heal: async () => {
      if (other.inTransaction) other.exec("ROLLBACK");
    },
    terminated: () => 0,
    rows: async () => ({
      invocations: reader.prepare(INVOCATIONS).all(),
      toolActions: reader.prepare(TOOL_ACTIONS).all(),
      schedulers: reader.prepare(SCHEDULERS).all(),
      events: (reader.prepare("SELECT count(*) AS n FROM history_events").get() as { n: number }).n,
    }),
    close: async () => {
      other.close();
      reader.close();
      await store.close();
    },
  };
}

/**
 * PostgreSQL: another session locks the lease rows (every fenced write and every lease renewal
 * waits on them) and each store backend found waiting is killed with `pg_terminate_backend`.
 */
export async function postgresBackend(): Promise<FaultyBackend & { terminateAll(): Promise<number> }> {
  const { schema, url, drop } = freshSchema("raes_rtfault");
  const store = await openControlPlaneStore(`${url}&application_name=${schema}`);
  const admin = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await admin.connect();
  const locker = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await locker.connect();
  let killer: Promise<void> | undefined;
  let broken = false;
  // By pid: a backend told to terminate may still be listed, waiting, when the next sweep looks (it
  // ends asynchronously, later on a loaded machine), and it is one backend, not two.
  const terminated = new Set<number>();
  const terminate = async (condition: string) => {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1${condition}`,
      [schema],
    );
    for (const { pid } of rows) terminated.add(pid);
    return rows.length;
  };
  const terminateWaiters = async () => {
    while (broken) {
      await terminate(" AND wait_event_type = 'Lock'");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const rows = async (sql: string) =>
    (await admin.query(sql.replace(/FROM (\w+)/, `FROM ${schema}.$1`))).rows;
  return {
    store,
    break: async () => {
      await locker.query("BEGIN");
      await locker.query(`SELECT * FROM ${schema}.leases FOR UPDATE`);
      broken = true;
      killer = terminateWaiters();
    },
    heal: async () => {
      broken = false;
      await killer;
      await locker.query("ROLLBACK");
    },
    terminated: () => terminated.size,
    terminateAll: () => terminate(""),
    rows: async () => ({
      invocations: await rows(INVOCATIONS),
      toolActions: await rows(TOOL_ACTIONS),
      schedulers: await rows(SCHEDULERS),
      events: Number((await rows("SELECT count(*) AS n FROM history_events"))[0]?.n),
    }),
    close: async () => {
      await store.close();
      await admin.end();
      await locker.end();
      await drop();
    },
  };
}

/** The store with `fault` run once, right before the named write is delegated to it. */
export function faultBefore(
  store: ControlPlaneStore,
  method: keyof ControlPlaneStore,
  fault: () => Promise<void>,
) {
  let armed = false;
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        if (armed && property === method) {
          armed = false;
          await fault();
        }
        return value.apply(target, args);
      };
    },
  });
  return {
    store: wrapped,
    arm: () => {
      armed = true;
    },
  };
}
