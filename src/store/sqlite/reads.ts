import type { Database, Statement } from "better-sqlite3";
import { SqlReads } from "../sql/index.js";
import { clockRecord, historyEvent, toolActionRecord } from "./rows.js";

type Named = Record<string, string>;

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
    const statements = new Map<string, Statement<[Named], unknown>>();
    const statement = (sql: string) => {
      let prepared = statements.get(sql);
      if (!prepared) {
        prepared = db.prepare<[Named], unknown>(sql);
        statements.set(sql, prepared);
      }
      return prepared;
    };
    super({
      // better-sqlite3 binds numbered `?n` parameters badly, so the n-th value is named `@pn`.
      rows: <Row>(sql: string, values: readonly string[]) =>
        statement(sql).all(Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v]))) as Row[],
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
