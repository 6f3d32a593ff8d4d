import type { Pool, QueryResultRow } from "pg";
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
  historyEvent,
  type InvocationRow,
  invocationRecord,
  type SchedulerRow,
  schedulerRecord,
  type ToolActionRow,
  toolActionRecord,
} from "./rows.js";

const INVOCATION = "SELECT * FROM invocations WHERE id = $1";
const TOOL_ACTION = "SELECT * FROM tool_actions WHERE id = $1";

/** The reads of the PostgreSQL store; each filter combination is its own prepared, indexed statement. */
export class PostgresReads {
  readonly #pool: Pool;
  readonly #names = new Map<string, string>();

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** One clock. */
  async clock(clockAddress: string): Promise<ClockRecord | undefined> {
    const [row] = await this.#rows<ClockRow>("SELECT * FROM clocks WHERE clock_address = $1", [clockAddress]);
    return row && clockRecord(row);
  }

  /** One scheduler. */
  async scheduler(participantAddress: string, policyAddress: string): Promise<SchedulerRecord | undefined> {
    const [row] = await this.#rows<SchedulerRow>(
      "SELECT * FROM schedulers WHERE participant_address = $1 AND policy_address = $2",
      [participantAddress, policyAddress],
    );
    return row && schedulerRecord(row);
  }

  /** Every scheduler, in the order they were first saved. */
  async schedulers(): Promise<SchedulerRecord[]> {
    return (await this.#rows<SchedulerRow>("SELECT * FROM schedulers ORDER BY saved_order", [])).map(
      schedulerRecord,
    );
  }

  /** One invocation. */
  async invocation(id: string): Promise<InvocationRecord | undefined> {
    const [row] = await this.#rows<InvocationRow>(INVOCATION, [id]);
    return row && invocationRecord(row);
  }

  /** Running invocations, in the order they were opened. */
  async openInvocations(participantAddress: string | undefined): Promise<InvocationRecord[]> {
    const rows =
      participantAddress === undefined
        ? await this.#rows<InvocationRow>(
            "SELECT * FROM invocations WHERE state = 'running' ORDER BY opened_order",
            [],
          )
        : await this.#rows<InvocationRow>(
            "SELECT * FROM invocations WHERE state = 'running' AND participant_address = $1 ORDER BY opened_order",
            [participantAddress],
          );
    return rows.map(invocationRecord);
  }

  /** One tool action. */
  async toolAction(id: string): Promise<ToolActionRecord | undefined> {
    const [row] = await this.#rows<ToolActionRow>(TOOL_ACTION, [id]);
    return row && toolActionRecord(row);
  }

  /** Tool actions matching every given filter, by invocation (bytewise) then admission order. */
  async toolActions(query: ToolActionQuery): Promise<ToolActionRecord[]> {
    const values: string[] = [];
    const sql = where("SELECT * FROM tool_actions", toolActionFilters(query), positional(values));
    const rows = await this.#rows<ToolActionRow>(
      `${sql} ORDER BY invocation_id COLLATE "C", admission_ordinal`,
      values,
    );
    return rows.map(toolActionRecord);
  }

  /** History events matching every given filter, in commit order. */
  async events(query: HistoryQuery): Promise<HistoryEvent[]> {
    const values: string[] = [];
    const sql = where(
      "SELECT sequence, body::text AS body FROM history_events",
      eventFilters(query),
      positional(values),
    );
    const rows = await this.#rows<{ sequence: number; body: string }>(`${sql} ORDER BY sequence`, values);
    return rows.map(historyEvent);
  }

  /** Runs a read as a named prepared statement (one name per distinct SQL text). */
  async #rows<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]> {
    let name = this.#names.get(text);
    if (name === undefined) {
      name = `raes_read_${this.#names.size}`;
      this.#names.set(text, name);
    }
    return (await this.#pool.query<Row>({ name, text, values })).rows;
  }
}

/** Binds each set filter to the next `$n`. */
function positional(values: string[]): (name: string, value: string) => string {
  return (_name, value) => `$${values.push(value)}`;
}
