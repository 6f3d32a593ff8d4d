import {
  type ApprovalRecord,
  type ApprovalState,
  codeOf,
  type OperatorDecision,
  type OperatorDecisionDraft,
  type PacingDeviationRecord,
  type ParticipantServiceRecord,
  type ResolutionRecord,
  type ToolActionPhase,
} from "../../records/index.js";
import { ClockMovedError, LeaseLostError, leaseLost, StoreConflictError, serviceMoved } from "../errors.js";
import { columnNames, fromExcluded } from "../sql/index.js";
import type {
  ClockChange,
  ClockFold,
  ClockRecord,
  Fence,
  InvocationCommit,
  InvocationRecord,
  SchedulerRecord,
  ServiceAdmission,
  ToolActionRecord,
} from "../types.js";
import { CommitSlices, commitBatch, commitBatches } from "./batch.js";
import { foldClockCte, foldValues, PostgresClockWrites } from "./clock-writes.js";
import { withDecision } from "./decisions.js";
import { FENCE_HELD, FENCE_HOLDS, FENCED, fenceValues, NO_FENCE, UNFENCED } from "./leases.js";
import {
  CLOCK_COLUMNS,
  type ClockRow,
  type Column,
  clockRecord,
  INVOCATION_COLUMNS,
  invocationValues,
  SCHEDULER_COLUMNS,
  schedulerValues,
  TOOL_ACTION_COLUMNS,
  type ToolActionChange,
  toolActionChange,
  toolActionValues,
} from "./rows.js";
import { savePacingDeviation, saveService } from "./services.js";
import type { Queryable } from "./sticky.js";

// Text of the PostgreSQL write statements: `$n::type` parameters numbered from `first`.

/** The column names, comma-separated. */
function names(columns: readonly Column[]): string {
  return columnNames(columns).join(", ");
}

function placeholders(columns: readonly Column[], first: number): string[] {
  return columns.map(([, type], i) => `$${first + i}::${type}`);
}

/** An insert of one row of `columns` from parameters, only where `guard` holds. */
function insert(table: string, columns: readonly Column[], first: number, guard: string): string {
  return `INSERT INTO ${table} (${names(columns)}) SELECT ${placeholders(columns, first).join(", ")} WHERE ${guard}`;
}

/** `insert`, replacing the row with the same `key` (comma-separated columns); returns 1 per row written. */
function upsert(
  table: string,
  columns: readonly Column[],
  first: number,
  key: string,
  guard: string,
): string {
  return `${insert(table, columns, first, guard)} ON CONFLICT (${key}) DO UPDATE SET ${excluded(columns, key)} RETURNING 1`;
}

function excluded(columns: readonly Column[], key: string): string {
  return fromExcluded(columnNames(columns), key.split(", "));
}

/** `SET` list for every column but the first (the key), numbered from the key's parameter. */
function assignments(columns: readonly Column[], first: number): string {
  const values = placeholders(columns, first);
  return columns
    .slice(1)
    .map(([name], i) => `${name} = ${values[i + 1]}`)
    .join(", ");
}

// The text of the PostgreSQL store's fenced write statements, in their fenced and unfenced forms.
// Every write is ONE statement (one round trip, one implicit transaction): data-modifying CTEs
// guarded by the fence CTE, reporting whether the fence held and whether the write happened.
const RESULT = "SELECT EXISTS (SELECT 1 FROM fence) AS fenced, EXISTS (SELECT 1 FROM written) AS written";
const SCHEDULER_KEY = "participant_address, policy_address";
// Parameter numbers after the fence's $1, $2: an invocation's columns, then its scheduler's, then the rest.
const SCHEDULER_FIRST = 3 + INVOCATION_COLUMNS.length;

const SAVE_SCHEDULER = (fence: string) => `WITH ${fence},
  written AS (${upsert("schedulers", SCHEDULER_COLUMNS, 3, SCHEDULER_KEY, "EXISTS (SELECT 1 FROM fence)")})
  ${RESULT}`;

const OPEN_INVOCATION = (fence: string) => `WITH ${fence},
  written AS (${insert("invocations", INVOCATION_COLUMNS, 3, "EXISTS (SELECT 1 FROM fence)")} RETURNING 1),
  scheduled AS (${upsert("schedulers", SCHEDULER_COLUMNS, SCHEDULER_FIRST, SCHEDULER_KEY, "EXISTS (SELECT 1 FROM written)")})
  ${RESULT}`;

// The open carrying a clock change: the invocation is inserted only where the clock was written, and
// the clock row as the statement found it comes back (all NULL when there is none).
const CLOCK_FIRST = SCHEDULER_FIRST + SCHEDULER_COLUMNS.length;
const OPEN_INVOCATION_CLOCKED = (fence: string) => `WITH ${fence},
  ${foldClockCte(CLOCK_FIRST, "EXISTS (SELECT 1 FROM fence)")},
  written AS (${insert("invocations", INVOCATION_COLUMNS, 3, "EXISTS (SELECT 1 FROM clocked)")} RETURNING 1),
  scheduled AS (${upsert("schedulers", SCHEDULER_COLUMNS, SCHEDULER_FIRST, SCHEDULER_KEY, "EXISTS (SELECT 1 FROM written)")})
  SELECT EXISTS (SELECT 1 FROM fence) AS fenced, EXISTS (SELECT 1 FROM written) AS written,
    ${names(CLOCK_COLUMNS.map(([name, type]) => [`stored.${name}`, type]))}
  FROM (SELECT 1) AS one LEFT JOIN clocks AS stored ON stored.clock_address = $${CLOCK_FIRST}::text`;

// An open under a service admission: the participant's service row is locked FOR SHARE at the revision
// the runtime read, so a control's update (a pause, a drain) either waits for the open to commit (and
// then sees its invocation) or commits first (and this statement, re-reading the row, finds no match).
// Nothing is written without it; `admitted` says which condition failed. Its two parameters come last.
const FOLD_PARAMS = CLOCK_COLUMNS.length + 6;
const ADMITTED = (first: number) =>
  `admitted AS (SELECT 1 FROM participant_services WHERE participant_address = $${first}::text AND revision = $${first + 1}::bigint FOR SHARE)`;
const ADMITS = "EXISTS (SELECT 1 FROM fence) AND EXISTS (SELECT 1 FROM admitted)";
const ADMITTED_RESULT = "EXISTS (SELECT 1 FROM admitted) AS admitted";

const OPEN_INVOCATION_ADMITTED = (fence: string) => `WITH ${fence}, ${ADMITTED(CLOCK_FIRST)},
  written AS (${insert("invocations", INVOCATION_COLUMNS, 3, ADMITS)} RETURNING 1),
  scheduled AS (${upsert("schedulers", SCHEDULER_COLUMNS, SCHEDULER_FIRST, SCHEDULER_KEY, "EXISTS (SELECT 1 FROM written)")})
  ${RESULT}, ${ADMITTED_RESULT}`;

const OPEN_INVOCATION_CLOCKED_ADMITTED = (
  fence: string,
) => `WITH ${fence}, ${ADMITTED(CLOCK_FIRST + FOLD_PARAMS)},
  ${foldClockCte(CLOCK_FIRST, ADMITS)},
  written AS (${insert("invocations", INVOCATION_COLUMNS, 3, "EXISTS (SELECT 1 FROM clocked)")} RETURNING 1),
  scheduled AS (${upsert("schedulers", SCHEDULER_COLUMNS, SCHEDULER_FIRST, SCHEDULER_KEY, "EXISTS (SELECT 1 FROM written)")})
  SELECT EXISTS (SELECT 1 FROM fence) AS fenced, EXISTS (SELECT 1 FROM written) AS written, ${ADMITTED_RESULT},
    ${names(CLOCK_COLUMNS.map(([name, type]) => [`stored.${name}`, type]))}
  FROM (SELECT 1) AS one LEFT JOIN clocks AS stored ON stored.clock_address = $${CLOCK_FIRST}::text`;

// The claims and settlements, the hot path, are plain statements guarded by the fence's condition:
// a data-modifying CTE with its report row cost ~100 µs more per statement (measured).
const INSERT_TOOL_ACTION = (guard: string) => insert("tool_actions", TOOL_ACTION_COLUMNS, 3, guard);

// A tool action's later step writes its id ($3), the columns it sets, then the expected phase.
const UPDATE_TOOL_ACTION = (set: readonly Column[]) => (guard: string) => {
  const columns: readonly Column[] = [["id", "text"], ...set];
  return `UPDATE tool_actions SET ${assignments(columns, 3)}
  WHERE id = $3::text AND phase = $${3 + columns.length}::text AND ${guard}`;
};

/** The update statement of each set of columns a later step writes, named in the order first seen. */
const UPDATES = new Map<string, Statement>();

function updateStatement(change: ToolActionChange): Statement {
  let found = UPDATES.get(change.key);
  if (found === undefined) {
    found = guarded(`raes_update_tool_action_${UPDATES.size + 1}`, UPDATE_TOOL_ACTION(change.columns));
    UPDATES.set(change.key, found);
  }
  return found;
}

/** One statement in its fenced and unfenced forms, each prepared once per connection. */
interface Statement {
  readonly name: string;
  readonly fenced: string;
  readonly unfenced: string;
}

function statement(name: string, text: (fence: string) => string): Statement {
  return { name, fenced: text(FENCED), unfenced: text(UNFENCED) };
}

/** A plain statement in its fenced and unfenced forms: it reports only how many rows it wrote. */
function guarded(name: string, text: (guard: string) => string): Statement {
  return { name, fenced: text(FENCE_HOLDS), unfenced: text(NO_FENCE) };
}

const STATEMENTS = {
  saveScheduler: statement("raes_save_scheduler", SAVE_SCHEDULER),
  openInvocation: statement("raes_open_invocation", OPEN_INVOCATION),
  openInvocationClocked: statement("raes_open_invocation_clocked", OPEN_INVOCATION_CLOCKED),
  openInvocationAdmitted: statement("raes_open_invocation_admitted", OPEN_INVOCATION_ADMITTED),
  openInvocationClockedAdmitted: statement(
    "raes_open_invocation_clocked_admitted",
    OPEN_INVOCATION_CLOCKED_ADMITTED,
  ),
  insertToolAction: guarded("raes_insert_tool_action", INSERT_TOOL_ACTION),
};

const RECORD_RESOLUTION = `UPDATE tool_actions SET resolution = $2::json, updated_at = $3::text
  WHERE id = $1::text AND settlement = 'indeterminate' AND resolution IS NULL`;

const SET_APPROVAL = `UPDATE tool_actions SET approval = $2::json, updated_at = $3::text
  WHERE id = $1::text AND phase = 'admitted'`;
const HOLD_APPROVAL = `${SET_APPROVAL} AND approval IS NULL`;
const DECIDE_APPROVAL = `${SET_APPROVAL} AND approval->>'state' = $4::text`;

/** PostgreSQL's SQLSTATE for a duplicate key. */
const UNIQUE_VIOLATION = "23505";

/** The write statements of the PostgreSQL store, one round trip each. */
export class PostgresWrites {
  readonly #pool: Queryable;
  readonly #clocks: PostgresClockWrites;

  constructor(pool: Queryable) {
    this.#pool = pool;
    this.#clocks = new PostgresClockWrites(pool);
  }

  /** Upserts the clock. */
  saveClock(clock: ClockRecord): Promise<void> {
    return this.#clocks.saveClock(clock);
  }

  /** Applies a change to the stored clock (PostgresClockWrites: a compare-and-swap, one round trip). */
  updateClock(initial: ClockRecord, change: ClockChange): Promise<ClockRecord> {
    return this.#clocks.updateClock(initial, change);
  }

  /** Upserts a scheduler under the fence. */
  async saveScheduler(scheduler: SchedulerRecord, fence: Fence | undefined): Promise<void> {
    await this.#fenced(STATEMENTS.saveScheduler, fence, schedulerValues(scheduler));
  }

  /** Inserts the running invocation and its scheduler together, with the clock's change when given. */
  async openInvocation(
    invocation: InvocationRecord,
    scheduler: SchedulerRecord,
    fence: Fence | undefined,
    clock?: ClockFold,
    admission?: ServiceAdmission,
  ): Promise<void> {
    const values = [...invocationValues(invocation), ...schedulerValues(scheduler)];
    const conflict = `invocation ${invocation.id} exists`;
    const admitting = admission ? [admission.participantAddress, admission.revision] : [];
    const admitted = (row: WriteRow) => {
      if (admission && !row.admitted) throw serviceMoved(admission, undefined);
    };
    if (!clock) {
      const statement = admission ? STATEMENTS.openInvocationAdmitted : STATEMENTS.openInvocation;
      admitted(await this.#inserted(statement, fence, [...values, ...admitting], conflict));
      return;
    }
    const address = clock.expected.clockAddress;
    // Until the answer is in, the row this process last saw may or may not have been replaced.
    this.#clocks.remember(address, undefined);
    const row = await this.#inserted(
      admission ? STATEMENTS.openInvocationClockedAdmitted : STATEMENTS.openInvocationClocked,
      fence,
      [...values, ...foldValues(clock), ...admitting],
      conflict,
    );
    admitted(row);
    if (row.written) return this.#clocks.remember(address, { ...clock.expected, updatedAt: clock.change.at });
    const stored = row.clock_address == null ? undefined : clockRecord(row as unknown as ClockRow);
    this.#clocks.remember(address, stored);
    throw new ClockMovedError(`clock ${address} is not where the open expected it`, stored);
  }

  /** Inserts a tool action claim; conflict when its id or tool call exists. */
  async insertToolAction(action: ToolActionRecord, fence: Fence | undefined): Promise<void> {
    const conflict = `tool action ${action.id} or tool call ${action.toolCallId} exists`;
    const written = await this.#guardedWrite(
      STATEMENTS.insertToolAction,
      fence,
      toolActionValues(action),
    ).catch((error: unknown) => {
      throw uniqueViolation(error) ? new StoreConflictError(conflict) : error;
    });
    // The fence is the insert's only condition.
    if (!written) throw leaseLost(fence);
  }

  /** Replaces a tool action only while it is in `expectedPhase`. */
  async updateToolAction(
    action: ToolActionRecord,
    expectedPhase: ToolActionPhase,
    fence: Fence | undefined,
  ): Promise<boolean> {
    const change = toolActionChange(action);
    if (await this.#guardedWrite(updateStatement(change), fence, [...change.values, expectedPhase]))
      return true;
    // Nothing written: the phase moved on, or the fence failed. A token once replaced never holds
    // again, so a fence that holds now held when the update ran.
    if (fence && !(await this.#held(fence))) throw leaseLost(fence);
    return false;
  }

  /** Closes an open invocation with its settlements, events and scheduler, all or nothing. */
  async commitInvocation(commit: InvocationCommit, fence: Fence | undefined): Promise<void> {
    // The batch statement with one close: one round trip, its own implicit transaction.
    const { fenced, written } = await commitBatch(this.#pool, [commit], fence);
    if (!fenced) throw leaseLost(fence);
    if (!written) throw new StoreConflictError(`invocation ${commit.invocation.id} is not open`);
  }

  /**
   * Closes several open invocations in one transaction on one connection, in slices, all or nothing;
   * the closes are taken from `commits` as the slices before them run.
   */
  async commitInvocations(commits: Iterable<InvocationCommit>, fence: Fence | undefined): Promise<void> {
    const slices = new CommitSlices(commits);
    try {
      return await this.#commitSlices(slices, fence);
    } finally {
      slices.abandon();
    }
  }

  async #commitSlices(slices: CommitSlices, fence: Fence | undefined): Promise<void> {
    const first = slices.next();
    if (first === undefined) return;
    // One close is one statement, all or nothing by itself: no BEGIN and COMMIT round trips.
    const [only] = first;
    if (first.length === 1 && only && slices.done) return this.commitInvocation(only, fence);
    const client = await this.#pool.connect();
    const lost = (): void => undefined;
    client.on("error", lost);
    let failure: Error | undefined;
    try {
      // At read committed whatever the session says: each statement sees what committed before it.
      await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
      await commitBatches(client, slices, first, fence);
      await client.query("COMMIT");
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.off("error", lost);
      // A conflict leaves a healthy connection; only a driver failure discards it.
      client.release(
        failure instanceof StoreConflictError || failure instanceof LeaseLostError ? undefined : failure,
      );
    }
  }

  /** Records a resolution on an indeterminate, unresolved tool action. */
  async recordResolution(
    id: string,
    resolution: ResolutionRecord,
    decision: OperatorDecisionDraft,
  ): Promise<boolean> {
    const chained = await withDecision(this.#pool, decision, undefined, async (client) => {
      const result = await client.query({
        name: "raes_record_resolution",
        text: RECORD_RESOLUTION,
        values: [id, JSON.stringify(resolution), resolution.resolvedAt],
      });
      return (result.rowCount ?? 0) > 0;
    });
    return chained !== undefined;
  }

  /** Sets an admitted tool action's approval when its current one is in state `expected`, with its decision. */
  async recordApproval(
    id: string,
    approval: ApprovalRecord,
    expected: ApprovalState | undefined,
    decision: OperatorDecisionDraft | undefined,
  ): Promise<boolean> {
    const values = [id, JSON.stringify(approval), approval.decidedAt ?? approval.requestedAt];
    const query =
      expected === undefined
        ? { name: "raes_hold_approval", text: HOLD_APPROVAL, values }
        : { name: "raes_decide_approval", text: DECIDE_APPROVAL, values: [...values, expected] };
    if (!decision) {
      const result = await this.#pool.query(query);
      return (result.rowCount ?? 0) > 0;
    }
    const chained = await withDecision(this.#pool, decision, undefined, async (client) => {
      const result = await client.query(query);
      return (result.rowCount ?? 0) > 0;
    });
    return chained !== undefined;
  }

  /** Appends a decision and saves the schedulers it changes in one transaction, the fence held throughout. */
  async recordDecision(
    decision: OperatorDecisionDraft,
    schedulers: readonly SchedulerRecord[],
    fence: Fence | undefined,
  ): Promise<OperatorDecision> {
    const chained = await withDecision(this.#pool, decision, fence, async (client) => {
      for (const scheduler of schedulers) {
        await client.query({
          name: STATEMENTS.saveScheduler.name,
          text: STATEMENTS.saveScheduler.unfenced,
          values: [...fenceValues(undefined), ...schedulerValues(scheduler)],
        });
      }
      return true;
    });
    if (!chained) throw new StoreConflictError("the operator decision was not recorded");
    return chained;
  }

  /** Records a pacing deviation once per participant and ref. */
  recordPacingDeviation(record: PacingDeviationRecord): Promise<boolean> {
    return savePacingDeviation(this.#pool, record);
  }

  /** Writes a participant's service record over the revision before it, with its decision, in one transaction. */
  saveParticipantService(
    record: ParticipantServiceRecord,
    decision?: OperatorDecisionDraft,
  ): Promise<boolean> {
    return saveService(this.#pool, record, decision);
  }

  /**
   * Runs a fenced insert; a taken key is a `StoreConflictError` with `conflict` as its message. The
   * insert has no ON CONFLICT: its speculative insertion cost a WAL record and an index probe on
   * every claim to handle a duplicate that only a retry or a bug sends.
   */
  async #inserted(
    statement: Statement,
    fence: Fence | undefined,
    values: unknown[],
    conflict: string,
  ): Promise<WriteRow> {
    try {
      return await this.#row(statement, fence, values);
    } catch (error) {
      if (uniqueViolation(error)) throw new StoreConflictError(conflict);
      throw error;
    }
  }

  /** Runs a fenced statement; throws `LeaseLostError` when the fence failed, else says whether it wrote. */
  async #fenced(statement: Statement, fence: Fence | undefined, values: unknown[]): Promise<boolean> {
    return (await this.#row(statement, fence, values)).written;
  }

  /** Runs a fenced statement and returns its row; throws `LeaseLostError` when the fence failed. */
  async #row(statement: Statement, fence: Fence | undefined, values: unknown[]): Promise<WriteRow> {
    const { rows } = await this.#pool.query<WriteRow>({
      name: fence ? `${statement.name}_fenced` : statement.name,
      text: fence ? statement.fenced : statement.unfenced,
      values: [...fenceValues(fence), ...values],
    });
    if (!rows[0]?.fenced) throw leaseLost(fence);
    return rows[0];
  }

  async #held(fence: Fence): Promise<boolean> {
    const held = await this.#pool.query({
      name: "raes_fence_held",
      text: FENCE_HELD,
      values: fenceValues(fence),
    });
    return (held.rowCount ?? 0) > 0;
  }

  /** Runs a plain guarded statement; true when it wrote a row. */
  async #guardedWrite(statement: Statement, fence: Fence | undefined, values: unknown[]): Promise<boolean> {
    const result = await this.#pool.query({
      name: fence ? `${statement.name}_fenced` : statement.name,
      text: fence ? statement.fenced : statement.unfenced,
      values: [...fenceValues(fence), ...values],
    });
    return (result.rowCount ?? 0) > 0;
  }
}

function uniqueViolation(error: unknown): boolean {
  return codeOf(error) === UNIQUE_VIOLATION;
}

/** A write statement's answer: whether the fence held and the write happened, and any columns it adds. */
type WriteRow = { fenced: boolean; written: boolean } & Record<string, unknown>;
