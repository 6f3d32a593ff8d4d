import {
  type ChainHead,
  DEFAULT_OPERATION_LIMIT,
  EMPTY_OPERATOR_CHAIN,
  type HistoryEvent,
  invocationEntry,
  mergeNewestFirst,
  type Operation,
  type OperationEntry,
  type OperationQuery,
  type OperatorChainHead,
  type OperatorDecision,
  operationFromInvocation,
  operationFromToolAction,
  type PacingDeviationRecord,
  type ParticipantServiceRecord,
  queriedKinds,
  type ResourceBudgetEventQuery,
  type ResourceBudgetEventRecord,
  type ResourceLogEntry,
  type ResourcePoolVersion,
  TOOL_ACTION_STATE_CONDITIONS,
  toolActionEntry,
} from "../../records/index.js";
import { type Answer, andThen, type StoreReads } from "../delegating.js";
import type {
  ClockRecord,
  HistoryQuery,
  InvocationRecord,
  SchedulerRecord,
  ToolActionQuery,
  ToolActionRecord,
} from "../types.js";
import { eventFilters, toolActionFilters, where } from "./clauses.js";
import {
  type ChainRow,
  type ClockRow,
  chainHead,
  type DecisionHeadRow,
  type DecisionRow,
  decisionHead,
  type EventRow,
  historyEvent,
  type InvocationRow,
  invocationRecord,
  operatorDecision,
  type SchedulerRow,
  schedulerRecord,
  type ToolActionRow,
} from "./records.js";
import {
  type PacingDeviationRow,
  pacingDeviationRecord,
  type ServiceRow,
  serviceRecord,
} from "./services.js";

/** What one SQL store brings to the shared reads: how it runs a query and where its dialect differs. */
export interface SqlReadDriver<Flag, AsText extends boolean> {
  /** The rows of `text`, its placeholders bound to `values` in order; at once or later. */
  rows<Row>(text: string, values: readonly string[]): Answer<Row[]>;
  /** The placeholder of the n-th value, from 1. */
  placeholder(n: number): string;
  /** The column ordering schedulers as first saved, and invocations as opened. */
  readonly savedOrder: string;
  readonly openedOrder: string;
  /** The collation suffix that orders text bytewise (empty where that is the default). */
  readonly bytewise: string;
  /**
   * A subquery giving each string of the JSON array of strings bound at `placeholder` as a row, the
   * column compared with `IN`: one statement for any number of ids.
   */
  listed(placeholder: string): string;
  /** The select list of an event's row beside its sequence: at least the body as text. */
  readonly bodyText: string;
  /** False for a store written before chaining (a read-only SQLite store before step 13): no chain heads. */
  readonly chained?: boolean;
  /** False for a store written before step 17 (a read-only SQLite store): no participant services. */
  readonly serviced?: boolean;
  /** False for a store written before step 19 (a read-only SQLite store): no resource pools. */
  readonly pooled?: boolean;
  /** False for a store written before step 20 (a read-only SQLite store): no pacing deviations. */
  readonly paced?: boolean;
  /** False for a store written before step 22 (a read-only store): no budget events. */
  readonly budgeted?: boolean;
  /** False for a store written before step 14 (a read-only SQLite store): no operator decisions. */
  readonly decided?: boolean;
  /** The committed event of a row, where the store keeps bodies other than as the draft's JSON. */
  readonly historyEvent?: (row: EventRow) => HistoryEvent;
  readonly clockRecord: (row: ClockRow<Flag>) => ClockRecord;
  readonly toolActionRecord: (row: ToolActionRow<AsText>) => ToolActionRecord;
}

/** The reads of a SQL store, one SQL text per query shape whatever the dialect. */
export class SqlReads<Flag, AsText extends boolean> implements StoreReads {
  readonly #driver: SqlReadDriver<Flag, AsText>;
  readonly #p: (n: number) => string;

  constructor(driver: SqlReadDriver<Flag, AsText>) {
    this.#driver = driver;
    this.#p = (n) => driver.placeholder(n);
  }

  /** One clock. */
  getClock(clockAddress: string): Answer<ClockRecord | undefined> {
    const sql = `SELECT * FROM clocks WHERE clock_address = ${this.#p(1)}`;
    return this.#first<ClockRow<Flag>, ClockRecord>(sql, [clockAddress], this.#driver.clockRecord);
  }

  /** One scheduler. */
  getScheduler(participantAddress: string, policyAddress: string): Answer<SchedulerRecord | undefined> {
    const sql = `SELECT * FROM schedulers WHERE participant_address = ${this.#p(1)} AND policy_address = ${this.#p(2)}`;
    return this.#first<SchedulerRow, SchedulerRecord>(
      sql,
      [participantAddress, policyAddress],
      schedulerRecord,
    );
  }

  /** Every scheduler, in the order they were first saved. */
  listSchedulers(): Answer<SchedulerRecord[]> {
    const sql = `SELECT * FROM schedulers ORDER BY ${this.#driver.savedOrder}`;
    return this.#all<SchedulerRow, SchedulerRecord>(sql, [], schedulerRecord);
  }

  /** One participant's execution service and episodes. */
  getParticipantService(participantAddress: string): Answer<ParticipantServiceRecord | undefined> {
    if (this.#driver.serviced === false) return undefined;
    const sql = `SELECT * FROM participant_services WHERE participant_address = ${this.#p(1)}`;
    return this.#first<ServiceRow, ParticipantServiceRecord>(sql, [participantAddress], serviceRecord);
  }

  /** Every participant's execution service and episodes, by participant address. */
  listParticipantServices(): Answer<ParticipantServiceRecord[]> {
    if (this.#driver.serviced === false) return [];
    const sql = `SELECT * FROM participant_services ORDER BY participant_address${this.#driver.bytewise}`;
    return this.#all<ServiceRow, ParticipantServiceRecord>(sql, [], serviceRecord);
  }

  /** Every shared v3 pool's version, by pool key (bytewise). */
  listResourcePools(): Answer<ResourcePoolVersion[]> {
    if (this.#driver.pooled === false) return [];
    const sql = `SELECT pool_key, version FROM resource_pools ORDER BY pool_key${this.#driver.bytewise}`;
    return andThen(this.#driver.rows<{ pool_key: string; version: number | string }>(sql, []), (rows) =>
      rows.map((r) => ({ poolKey: r.pool_key, version: Number(r.version) })),
    );
  }

  /** A page of budget events (schema step 22), in sequence order; `last` reads the end first. */
  listBudgetEvents(query: ResourceBudgetEventQuery): Answer<ResourceBudgetEventRecord[]> {
    if (this.#driver.budgeted === false) return [];
    const values: string[] = [];
    const conditions: string[] = [];
    if (query.participantAddress !== undefined)
      conditions.push(`participant_address = ${this.#p(values.push(query.participantAddress))}`);
    if (query.afterSequence !== undefined) conditions.push(`sequence > ${pageInteger(query.afterSequence)}`);
    const filtered = `SELECT sequence, participant_address, policy_address, seq, payload FROM budget_events${
      conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`
    }`;
    const limit = ` LIMIT ${pageInteger(query.limit)}`;
    const sql =
      query.last === undefined
        ? `${filtered} ORDER BY sequence${limit}`
        : `SELECT * FROM (${filtered} ORDER BY sequence DESC LIMIT ${pageInteger(query.last)}) AS tail ORDER BY sequence${limit}`;
    return this.#all<BudgetEventRow, ResourceBudgetEventRecord>(sql, values, budgetEventRecord);
  }

  /** How many budget events the store keeps (of one participant when given). */
  countBudgetEvents(participantAddress?: string): Answer<number> {
    if (this.#driver.budgeted === false) return 0;
    const filter = participantAddress === undefined ? "" : ` WHERE participant_address = ${this.#p(1)}`;
    const values = participantAddress === undefined ? [] : [participantAddress];
    return andThen(
      this.#driver.rows<{ n: number | string }>(`SELECT count(*) AS n FROM budget_events${filter}`, values),
      ([row]) => Number(row?.n ?? 0),
    );
  }

  /** The pacing deviations of one participant (or of all), by participant, then as recorded. */
  listPacingDeviations(participantAddress?: string): Answer<PacingDeviationRecord[]> {
    if (this.#driver.paced === false) return [];
    const filter = participantAddress === undefined ? "" : ` WHERE participant_address = ${this.#p(1)}`;
    const sql = `SELECT * FROM pacing_deviations${filter} ORDER BY participant_address${this.#driver.bytewise}, recorded_at, ref${this.#driver.bytewise}`;
    const values = participantAddress === undefined ? [] : [participantAddress];
    return this.#all<PacingDeviationRow, PacingDeviationRecord>(sql, values, pacingDeviationRecord);
  }

  /** One invocation. */
  getInvocation(id: string): Answer<InvocationRecord | undefined> {
    const sql = `SELECT * FROM invocations WHERE id = ${this.#p(1)}`;
    return this.#first<InvocationRow, InvocationRecord>(sql, [id], invocationRecord);
  }

  /**
   * The operation of each id, in order (its invocation's, else its tool action's, else undefined):
   * the ids bound as one JSON array, each table asked once, whatever their number.
   */
  getOperations(ids: readonly string[]): Answer<(Operation | undefined)[]> {
    if (ids.length === 0) return [];
    // The driver stores a lone surrogate as U+FFFD, as it binds one; the list is JSON, so it is replaced first.
    const stored = ids.map((id) => id.replace(LONE_SURROGATES, "\uFFFD"));
    const list = [JSON.stringify([...new Set(stored)])];
    const among = `WHERE id IN (${this.#driver.listed(this.#p(1))})`;
    const invocations = this.#all<InvocationRow, InvocationRecord>(
      `SELECT * FROM invocations ${among}`,
      list,
      invocationRecord,
    );
    const actions = this.#all<ToolActionRow<AsText>, ToolActionRecord>(
      `SELECT * FROM tool_actions ${among}`,
      list,
      this.#driver.toolActionRecord,
    );
    const join = ([found, claimed]: [InvocationRecord[], ToolActionRecord[]]) => {
      const byId = new Map<string, Operation>();
      for (const action of claimed) byId.set(action.id, operationFromToolAction(action));
      // An id of both tables is its invocation's, as `getOperation` answers.
      for (const invocation of found) byId.set(invocation.id, operationFromInvocation(invocation));
      return stored.map((id) => byId.get(id));
    };
    return invocations instanceof Promise || actions instanceof Promise
      ? Promise.all([invocations, actions]).then(join)
      : join([invocations, actions]);
  }

  /** Running invocations, in the order they were opened. */
  listOpenInvocations(participantAddress?: string): Answer<InvocationRecord[]> {
    const values = participantAddress === undefined ? [] : [participantAddress];
    const only = participantAddress === undefined ? "" : ` AND participant_address = ${this.#p(1)}`;
    const sql = `SELECT * FROM invocations WHERE state = 'running'${only} ORDER BY ${this.#driver.openedOrder}`;
    return this.#all<InvocationRow, InvocationRecord>(sql, values, invocationRecord);
  }

  /** One tool action. */
  getToolAction(id: string): Answer<ToolActionRecord | undefined> {
    const sql = `SELECT * FROM tool_actions WHERE id = ${this.#p(1)}`;
    return this.#first<ToolActionRow<AsText>, ToolActionRecord>(sql, [id], this.#driver.toolActionRecord);
  }

  /** Tool actions matching every given filter, by invocation (bytewise) then admission order. */
  listToolActions(query: ToolActionQuery): Answer<ToolActionRecord[]> {
    const values: string[] = [];
    const sql = where("SELECT * FROM tool_actions", toolActionFilters(query), this.#bind(values));
    const ordered = `${sql} ORDER BY invocation_id${this.#driver.bytewise}, admission_ordinal`;
    return this.#all<ToolActionRow<AsText>, ToolActionRecord>(ordered, values, this.#driver.toolActionRecord);
  }

  /** Tool actions of running invocations, joined on the invocation so one query reads them all. */
  listOpenToolActions(participantAddress?: string): Answer<ToolActionRecord[]> {
    const values = participantAddress === undefined ? [] : [participantAddress];
    const only = participantAddress === undefined ? "" : ` AND i.participant_address = ${this.#p(1)}`;
    const bytewise = this.#driver.bytewise;
    const sql = `SELECT t.* FROM invocations i JOIN tool_actions t ON t.invocation_id = i.id
      WHERE i.state = 'running'${only} ORDER BY t.invocation_id${bytewise}, t.admission_ordinal`;
    return this.#all<ToolActionRow<AsText>, ToolActionRecord>(sql, values, this.#driver.toolActionRecord);
  }

  /**
   * Operations matching every filter, newest first. Each table is asked once per equality condition,
   * newest first and at most `limit` rows, which an index on (condition, created_at, id) answers by
   * reading only those rows; the answers are merged.
   */
  listOperations(query: OperationQuery = {}): Answer<OperationEntry[]> {
    const limit = query.limit ?? DEFAULT_OPERATION_LIMIT;
    const kinds = queriedKinds(query);
    const asked: Answer<OperationEntry[]>[] = [];
    if (kinds.invocations) {
      const state = query.state === undefined ? [] : [["state", query.state] as const];
      asked.push(
        this.#newest<InvocationRow>("invocations", query, state, limit, (row) =>
          invocationEntry(invocationRecord(row)),
        ),
      );
    }
    if (kinds.toolActions) {
      const conditions = query.state === undefined ? [undefined] : TOOL_ACTION_STATE_CONDITIONS[query.state];
      for (const condition of conditions) {
        asked.push(
          this.#newest<ToolActionRow<AsText>>(
            "tool_actions",
            query,
            condition ? [condition] : [],
            limit,
            (row) => toolActionEntry(this.#driver.toolActionRecord(row)),
          ),
        );
      }
    }
    const merge = (lists: OperationEntry[][]) => mergeNewestFirst(lists, limit);
    return asked.some((a) => a instanceof Promise)
      ? Promise.all(asked).then(merge)
      : merge(asked as OperationEntry[][]);
  }

  /**
   * Ids that start or end with `fragment`, from both tables. The lengths are whole numbers this code
   * computed, written into the text; the fragment is bound. No index answers a suffix: a lookup reads
   * every id once.
   */
  findOperationIds(fragment: string, limit: number): Answer<string[]> {
    const n = [...fragment].length;
    const cap = Math.trunc(limit);
    if (n === 0 || cap < 1) return [];
    const match = `substr(id, 1, ${n}) = ${this.#p(1)} OR (length(id) >= ${n} AND substr(id, length(id) - ${n - 1}) = ${this.#p(2)})`;
    const asked = (["invocations", "tool_actions"] as const).map((table) =>
      this.#all<{ id: string }, string>(
        `SELECT id FROM ${table} WHERE ${match} LIMIT ${cap}`,
        [fragment, fragment],
        (row) => row.id,
      ),
    );
    const merge = (lists: string[][]) => lists.flat().sort(byCodeUnits).slice(0, cap);
    return asked.some((a) => a instanceof Promise)
      ? Promise.all(asked).then(merge)
      : merge(asked as string[][]);
  }

  /** The newest `limit` rows of a table matching the query's participant and time and `equal`. */
  #newest<Row>(
    table: "invocations" | "tool_actions",
    query: OperationQuery,
    equal: readonly (readonly [string, string])[],
    limit: number,
    map: (row: Row) => OperationEntry,
  ): Answer<OperationEntry[]> {
    const values: string[] = [];
    const clauses: string[] = [];
    const bind = (value: string) => this.#p(values.push(value));
    if (query.participantAddress !== undefined)
      clauses.push(`participant_address = ${bind(query.participantAddress)}`);
    for (const [column, value] of equal) clauses.push(`${column} = ${bind(value)}`);
    // Times and ids compare bytewise in every store, as the memory store compares them.
    const bytewise = this.#driver.bytewise;
    if (query.since !== undefined) clauses.push(`created_at${bytewise} >= ${bind(query.since)}`);
    if (query.before !== undefined) {
      // A row value, not `created_at < t OR (created_at = t AND id < i)`: the index on (…, created_at,
      // id) starts its range at the cursor, where the OR form filters every row newer than it, so
      // each page of a long listing cost more than the one before (an export grew quadratically).
      const at = bind(query.before.createdAt);
      clauses.push(`(created_at${bytewise}, id${bytewise}) < (${at}, ${bind(query.before.id)})`);
    }
    const filter = clauses.length === 0 ? "" : ` WHERE ${clauses.join(" AND ")}`;
    const order = `ORDER BY created_at${bytewise} DESC, id${bytewise} DESC LIMIT ${Math.trunc(limit)}`;
    return this.#all<Row, OperationEntry>(`SELECT * FROM ${table}${filter} ${order}`, values, map);
  }

  /** At most `limit` events after `afterSequence`, with their chain digests, in commit order. */
  readChainPage(afterSequence: number, limit: number): Answer<HistoryEvent[]> {
    // Not clamped at 0: a reader that starts before the first sequence also sees a row someone put at 0 or below.
    const after = Math.max(Number.MIN_SAFE_INTEGER, Math.trunc(afterSequence));
    const sql = `SELECT sequence, ${this.#driver.bodyText} FROM history_events WHERE sequence > ${after} ORDER BY sequence LIMIT ${Math.max(0, Math.trunc(limit))}`;
    return this.#all<EventRow, HistoryEvent>(sql, [], this.#driver.historyEvent ?? historyEvent);
  }

  /** Every participant's chain, ordered by participant (bytewise). */
  listChainHeads(): Answer<ChainHead[]> {
    if (this.#driver.chained === false) return [];
    const sql = `SELECT * FROM history_chains ORDER BY participant_address${this.#driver.bytewise}`;
    return this.#all<ChainRow, ChainHead>(sql, [], chainHead);
  }

  /** Whether the schema is at history chains' step (13) or later. */
  historyChained(): Answer<boolean> {
    return this.#driver.chained !== false;
  }

  /** At most `limit` operator decisions after `afterSequence`, in order, as stored. */
  readDecisionPage(afterSequence: number, limit: number): Answer<OperatorDecision[]> {
    if (this.#driver.decided === false) return [];
    const sql = `SELECT * FROM operator_decisions WHERE sequence > ${pageInteger(Math.max(0, Math.trunc(afterSequence)))} ORDER BY sequence LIMIT ${pageInteger(Math.max(0, Math.trunc(limit)))}`;
    return this.#all<DecisionRow, OperatorDecision>(sql, [], operatorDecision);
  }

  /** The end of the operator chain as stored; the genesis while no decision was made. */
  getDecisionHead(): Answer<OperatorChainHead> {
    if (this.#driver.decided === false) return EMPTY_OPERATOR_CHAIN;
    return andThen(
      this.#first<DecisionHeadRow, OperatorChainHead>("SELECT * FROM operator_chain", [], decisionHead),
      (head) => head ?? EMPTY_OPERATOR_CHAIN,
    );
  }

  /** History events matching every given filter, in commit order. */
  listEvents(query: HistoryQuery = {}): Answer<HistoryEvent[]> {
    const values: string[] = [];
    const select = `SELECT sequence, ${this.#driver.bodyText} FROM history_events`;
    const filtered = where(select, eventFilters(query), this.#bind(values));
    // Integers are written into the text (validated), as the listing's LIMIT is: the statement is one
    // per combination of filters and page bounds either way.
    const after =
      query.afterSequence === undefined
        ? ""
        : `${filtered === select ? " WHERE" : " AND"} sequence > ${pageInteger(query.afterSequence)}`;
    const limit = query.limit === undefined ? "" : ` LIMIT ${pageInteger(query.limit)}`;
    const sql =
      query.last === undefined
        ? `${filtered}${after} ORDER BY sequence${limit}`
        : `SELECT * FROM (${filtered}${after} ORDER BY sequence DESC LIMIT ${pageInteger(query.last)}) AS tail ORDER BY sequence${limit}`;
    return this.#all<EventRow, HistoryEvent>(sql, values, this.#driver.historyEvent ?? historyEvent);
  }

  /** Binds each set filter to the next placeholder. */
  #bind(values: string[]): (name: string, value: string) => string {
    return (_name, value) => this.#p(values.push(value));
  }

  #first<Row, T>(sql: string, values: readonly string[], map: (row: Row) => T): Answer<T | undefined> {
    return andThen(this.#driver.rows<Row>(sql, values), ([row]) => row && map(row));
  }

  #all<Row, T>(sql: string, values: readonly string[], map: (row: Row) => T): Answer<T[]> {
    return andThen(this.#driver.rows<Row>(sql, values), (rows) => rows.map(map));
  }
}

/** A stored budget event (schema step 22); PostgreSQL gives its bigints as text. */
interface BudgetEventRow {
  readonly sequence: number | string;
  readonly participant_address: string;
  readonly policy_address: string;
  readonly seq: number | string;
  readonly payload: string;
}

function budgetEventRecord(r: BudgetEventRow): ResourceBudgetEventRecord {
  return {
    sequence: Number(r.sequence),
    participantAddress: r.participant_address,
    policyAddress: r.policy_address,
    seq: Number(r.seq),
    entry: JSON.parse(r.payload) as ResourceLogEntry,
  };
}

const LONE_SURROGATES = /\p{Cs}/gu;

/** A page bound as SQL text: a whole number from 0, or a `RangeError`. */
function pageInteger(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new RangeError(`a page bound is a whole number from 0, not ${n}`);
  return String(n);
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
