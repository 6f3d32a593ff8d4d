import type { Database, Statement } from "better-sqlite3";
import { SqlReads } from "../sql/index.js";
import { clockRecord, historyEvent, toolActionRecord } from "./rows.js";

type Named = Record<string, string>;

type RowObject = (cells: readonly unknown[]) => Record<string, unknown>;

/** A read statement returning arrays, and how its rows are made objects. */
interface Prepared {
  readonly raw: Statement<[Named], unknown[]>;
  readonly row: RowObject;
}

/** The row as the driver's object would hold it: each column by name, a later one of a repeated name winning. */
function rowObject(names: readonly string[], cells: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i += 1) row[names[i] as string] = cells[i];
  return row;
}

/**
 * `rowObject` for one statement, as a function whose object literal names its columns: every row of
 * every table then has its own fixed shape, where the one loop assigning names for all tables makes V8
 * fall back to slow, generic stores (about ten times the cost per row in a recovery's reads). Where
 * code generation from strings is disallowed (`--disallow-code-generation-from-strings`), the loop.
 */
export function rowObjectOf(names: readonly string[]): RowObject {
  const members = names.map((name, i) => `${JSON.stringify(name)}: cells[${i}]`).join(", ");
  // A literal `"__proto__": …` sets the prototype, as the loop's assignment does.
  try {
    return new Function("cells", `return { ${members} };`) as RowObject;
  } catch {
    return (cells) => rowObject(names, cells);
  }
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
        prepared = { raw, row: rowObjectOf(raw.columns().map((c) => c.name)) };
        statements.set(sql, prepared);
      }
      return prepared;
    };
    super({
      // better-sqlite3 binds numbered `?n` parameters badly, so the n-th value is named `@pn`.
      rows: <Row>(sql: string, values: readonly string[]) => {
        const { raw, row } = statement(sql);
        const cells = raw.all(Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v])));
        return cells.map(row) as Row[];
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
