import type { Database, Statement } from "better-sqlite3";
import type { HistoryEvent } from "../../records/index.js";
import { eventFilters, toolActionFilters, where } from "../sql/clauses.js";
import type {
  ClockRecord,
  HistoryQuery,
  InvocationRecord,
  SchedulerRecord,
  ToolActionQuery,
  ToolActionRecord,
} from "../types.js";
import {
  type ClockRow,
  clockRecord,
  type EventRow,
  historyEvent,
  type InvocationRow,
  invocationRecord,
  type SchedulerRow,
  schedulerRecord,
  type ToolActionRow,
  toolActionRecord,
} from "./rows.js";

type Filter = Record<string, string>;

/** The reads of the SQLite store; each filter combination has its own prepared, indexed statement. */
export class SqliteReads {
  readonly #db: Database;
  readonly #statements = new Map<string, Statement<[Filter], unknown>>();

  constructor(db: Database) {
    this.#db = db;
  }

  /** One clock. */
  clock(clockAddress: string): ClockRecord | undefined {
    const row = this.#one<ClockRow>("SELECT * FROM clocks WHERE clock_address = @clockAddress", {
      clockAddress,
    });
    return row && clockRecord(row);
  }

  /** One scheduler. */
  scheduler(participantAddress: string, policyAddress: string): SchedulerRecord | undefined {
    const row = this.#one<SchedulerRow>(
      "SELECT * FROM schedulers WHERE participant_address = @participantAddress AND policy_address = @policyAddress",
      { participantAddress, policyAddress },
    );
    return row && schedulerRecord(row);
  }

  /** Every scheduler, in the order they were first saved. */
  schedulers(): SchedulerRecord[] {
    return this.#all<SchedulerRow>("SELECT * FROM schedulers ORDER BY rowid", {}).map(schedulerRecord);
  }

  /** One invocation. */
  invocation(id: string): InvocationRecord | undefined {
    const row = this.#one<InvocationRow>("SELECT * FROM invocations WHERE id = @id", { id });
    return row && invocationRecord(row);
  }

  /** Running invocations, in the order they were opened. */
  openInvocations(participantAddress: string | undefined): InvocationRecord[] {
    const filter: Filter = participantAddress === undefined ? {} : { participantAddress };
    const where = participantAddress === undefined ? "" : " AND participant_address = @participantAddress";
    return this.#all<InvocationRow>(
      `SELECT * FROM invocations WHERE state = 'running'${where} ORDER BY rowid`,
      filter,
    ).map(invocationRecord);
  }

  /** One tool action. */
  toolAction(id: string): ToolActionRecord | undefined {
    const row = this.#one<ToolActionRow>("SELECT * FROM tool_actions WHERE id = @id", { id });
    return row && toolActionRecord(row);
  }

  /** Tool actions matching every given filter, by invocation then admission order. */
  toolActions(query: ToolActionQuery): ToolActionRecord[] {
    const filter: Filter = {};
    const sql = where("SELECT * FROM tool_actions", toolActionFilters(query), named(filter));
    return this.#all<ToolActionRow>(`${sql} ORDER BY invocation_id, admission_ordinal`, filter).map(
      toolActionRecord,
    );
  }

  /** History events matching every given filter, in commit order. */
  events(query: HistoryQuery): HistoryEvent[] {
    const filter: Filter = {};
    const sql = where("SELECT sequence, body FROM history_events", eventFilters(query), named(filter));
    return this.#all<Pick<EventRow, "sequence" | "body">>(`${sql} ORDER BY sequence`, filter).map(
      historyEvent,
    );
  }

  #one<Row>(sql: string, filter: Filter): Row | undefined {
    return this.#statement(sql).get(filter) as Row | undefined;
  }

  #all<Row>(sql: string, filter: Filter): Row[] {
    return this.#statement(sql).all(filter) as Row[];
  }

  #statement(sql: string): Statement<[Filter], unknown> {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare<[Filter], unknown>(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}

/** Binds each set filter to `@name`. */
function named(filter: Filter): (name: string, value: string) => string {
  return (name, value) => {
    filter[name] = value;
    return `@${name}`;
  };
}
