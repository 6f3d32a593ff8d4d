import type { QueryResultRow } from "pg";
import { SqlReads } from "../sql/index.js";
import { clockRecord, toolActionRecord } from "./rows.js";
import { ALL_TABLES, type ReadTables } from "./schema.js";
import type { Queryable } from "./sticky.js";

/**
 * The reads of the PostgreSQL store; each filter combination is its own prepared, indexed statement.
 * `tables` are those of a schema read as it is (read-only, never migrated); a migrated one has all.
 */
export class PostgresReads extends SqlReads<boolean, false> {
  constructor(pool: Queryable, tables: ReadTables = ALL_TABLES) {
    const names = new Map<string, string>();
    /** Runs a read as a named prepared statement (one name per distinct SQL text). */
    const rows = async <Row>(text: string, values: readonly string[]): Promise<Row[]> => {
      let name = names.get(text);
      if (name === undefined) {
        name = `raes_read_${names.size}`;
        names.set(text, name);
      }
      return (await pool.query<QueryResultRow>({ name, text, values: [...values] })).rows as Row[];
    };
    super({
      rows,
      placeholder: (n) => `$${n}`,
      listed: (p) => `SELECT json_array_elements_text(${p}::json)`,
      savedOrder: "saved_order",
      openedOrder: "opened_order",
      bytewise: ' COLLATE "C"',
      // The key columns too: an event carries its columns' values, so a column edited outside the store
      // fails the chain as an edit of that event (sql/records.ts historyEvent).
      bodyText: `participant_address, episode_id, action_instance_id, body::text AS body${tables.chained ? ", chain_digest" : ""}`,
      ...tables,
      clockRecord,
      toolActionRecord,
    });
  }
}
