import type { Database, Statement } from "better-sqlite3";
import { SqlReads } from "../sql/index.js";
import { clockRecord, historyEvent, toolActionRecord } from "./rows.js";

type Named = Record<string, string>;

/** A read statement returning arrays, and its columns' names. */
interface Prepared {
  readonly raw: Statement<[Named], unknown[]>;
  readonly names: readonly string[];
}

/** The row as the driver's object would hold it: each column by name, a later one of a repeated name winning. */
function rowObject(names: readonly string[], cells: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i += 1) row[names[i] as string] = cells[i];
  return row;
}

/** The reads of the SQLite store; each filter combination has its own prepared, indexed statement. */
export class SqliteReads extends SqlReads<number, true> {
  constructor(
    db: Database,
    chained = true,
    decided = true,
    serviced = true,
    pooled = true,
    paced = true,
    budgeted = true,
  ) {
    const statements = new Map<string, Prepared>();
    const statement = (sql: string): Prepared => {
      let prepared = statements.get(sql);
      if (!prepared) {
        // Rows come as arrays and are made objects here, every row of a statement the same shape:
        // cheaper than the driver's objects, a cost paid on every row a long history reads
        // (docs/hardening.md).
        const raw = db.prepare<[Named], unknown[]>(sql).raw(true);
        prepared = { raw, names: raw.columns().map((c) => c.name) };
        statements.set(sql, prepared);
      }
      return prepared;
    };
    super({
      // better-sqlite3 binds numbered `?n` parameters badly, so the n-th value is named `@pn`.
      rows: <Row>(sql: string, values: readonly string[]) => {
        const { raw, names } = statement(sql);
        const cells = raw.all(Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v])));
        return cells.map((row) => rowObject(names, row)) as Row[];
      },
      placeholder: (n) => `@p${n}`,
      listed: (p) => `SELECT value FROM json_each(${p})`,
      savedOrder: "rowid",
      openedOrder: "rowid",
      bytewise: "",
      bodyText: `participant_address, episode_id, action_instance_id, body${chained ? ", chain_digest" : ""}`,
      chained,
      decided,
      serviced,
      pooled,
      paced,
      budgeted,
      historyEvent,
      clockRecord,
      toolActionRecord,
    });
  }
}
