/**
 * Searches for a canary in everything a run leaves behind: files, every table and column of a SQLite
 * or PostgreSQL store (tables taken from the catalog), and any text. A hit names where it was found.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { ControlPlaneStore } from "../../src/store/index.js";
import { adminQuery } from "../store/pg-available.js";

/** Every spelling of a secret a careless store might keep: any case, with or without dashes, UTF-8, UTF-16 or hex. */
export function spellings(secret: string): Buffer[] {
  const bare = secret.replaceAll("-", "");
  return [secret, secret.toUpperCase(), bare, bare.toUpperCase()].flatMap((s) => [
    Buffer.from(s, "utf8"),
    Buffer.from(s, "utf16le"),
    Buffer.from(Buffer.from(s, "utf8").toString("hex"), "utf8"),
  ]);
}

/** Whether any spelling of `secret` is in `bytes`. */
export function holds(bytes: Buffer | string, secret: string): boolean {
  const haystack = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
  return spellings(secret).some((s) => haystack.includes(s));
}

/** One place searched and what it holds. */
export interface Searched {
  readonly where: string;
  readonly bytes: Buffer;
}

/** Every regular file below `dir`, WAL and shared-memory files included, as they are now. */
export function filesBelow(dir: string): Searched[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ where: path, bytes: readFileSync(path) }));
}

/** Every table of a SQLite file named by its catalog, each cell as its bytes (blobs as they are). */
export function sqliteCells(file: string): Searched[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .all();
    return tables.map(({ name }) => {
      const rows = db
        .prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`)
        .raw()
        .all() as unknown[][];
      const cells = rows.flat().map((cell) => (Buffer.isBuffer(cell) ? cell : Buffer.from(String(cell))));
      return { where: `sqlite table ${name}`, bytes: Buffer.concat(cells) };
    });
  } finally {
    db.close();
  }
}

/** Every table of a PostgreSQL schema named by its catalog, each row as its text (every column). */
export async function postgresRows(schema: string): Promise<Searched[]> {
  const tables = await adminQuery<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
    [schema],
  );
  const found: Searched[] = [];
  for (const { table_name } of tables) {
    const rows = await adminQuery<{ row: string }>(
      `SELECT t::text AS row FROM "${schema}"."${table_name.replaceAll('"', '""')}" t`,
    );
    found.push({
      where: `postgres table ${table_name}`,
      bytes: Buffer.from(rows.map((r) => r.row).join("\n")),
    });
  }
  return found;
}

/** The places among `searched` that hold `secret`. */
export function placesHolding(searched: readonly Searched[], secret: string): string[] {
  return searched.filter((s) => holds(s.bytes, secret)).map((s) => s.where);
}

/** Text as a searched place. */
export function text(where: string, value: unknown): Searched {
  return { where, bytes: Buffer.from(typeof value === "string" ? value : JSON.stringify(value), "utf8") };
}

/** Everything a store answers through its reads: events, tool actions, schedulers, open invocations, every operation. */
export async function storeReads(store: ControlPlaneStore): Promise<Searched[]> {
  const events = await store.listEvents();
  const actions = await store.listToolActions({});
  const ids = new Set([...events.map((e) => e.action_instance_id), ...actions.map((a) => a.id)]);
  const operations = await Promise.all([...ids].map((id) => store.getOperation(id)));
  return [
    text("store events", events),
    text("store tool actions", actions),
    text("store schedulers", await store.listSchedulers()),
    text("store open invocations", await store.listOpenInvocations()),
    text("store operations", operations),
  ];
}
