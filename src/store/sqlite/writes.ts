import type { Database, Statement } from "better-sqlite3";
import {
  type ApprovalRecord,
  type ApprovalState,
  appendDecision,
  type CanonicalCache,
  type ChainHead,
  codeOf,
  EMPTY_OPERATOR_CHAIN,
  headAfter,
  type OperatorDecision,
  type OperatorDecisionDraft,
  type PacingDeviationRecord,
  type ParticipantServiceRecord,
  type ResolutionRecord,
  type ToolActionPhase,
  UNANCHORED,
} from "../../records/index.js";
import { ChainLinker } from "../chain.js";
import { applyClockChange, foldClock } from "../clock.js";
import type { Answer } from "../delegating.js";
import { StoreConflictError, serviceMoved } from "../errors.js";
import {
  CHAIN_COLUMNS,
  type ChainRow,
  CLOCK_COLUMNS,
  chainHead,
  columnNames,
  DECISION_COLUMNS,
  type DecisionHeadRow,
  type DecisionRow,
  decisionHead,
  decisionRow,
  fromExcluded,
  INVOCATION_CLOSE_COLUMNS,
  INVOCATION_COLUMNS,
  PACING_DEVIATION_COLUMNS,
  type PacingDeviationRow,
  pacingDeviationRow,
  SCHEDULER_COLUMNS,
  SERVICE_COLUMNS,
  type ServiceRow,
  serviceRow,
  setColumns,
  TOOL_ACTION_COLUMNS,
  TOOL_ACTION_SETTLE_COLUMNS,
} from "../sql/index.js";
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
import { EventRowPipeline, PREPARE_APART_FROM } from "./event-rows/index.js";
import type { Durability, GroupCommit } from "./group-commit.js";
import { FENCE_HELD, type SqliteLeases } from "./leases.js";
import { type PackCache, packBody } from "./packed-body.js";
import {
  type ClockRow,
  clockRecord,
  clockRow,
  type InvocationCloseRow,
  type InvocationRow,
  invocationCloseRow,
  invocationRow,
  type SchedulerRow,
  schedulerRow,
  type ToolActionRow,
  type ToolActionSettleRow,
  toolActionRow,
  toolActionSettleRow,
} from "./rows.js";

const CLOCK = columnNames(CLOCK_COLUMNS);
const SCHEDULER = columnNames(SCHEDULER_COLUMNS);
const INVOCATION = columnNames(INVOCATION_COLUMNS);
const TOOL_ACTION = columnNames(TOOL_ACTION_COLUMNS);
const CLOSE_COLUMNS = columnNames(INVOCATION_CLOSE_COLUMNS);
const SETTLE_COLUMNS = columnNames(TOOL_ACTION_SETTLE_COLUMNS);

/** The writes of the SQLite store; each runs under `BEGIN IMMEDIATE`, alone or in a group commit. */
export class SqliteWrites {
  readonly #commits: GroupCommit;
  readonly #leases: SqliteLeases;
  readonly #upsertClock: Statement<[ClockRow]>;
  readonly #selectClock: Statement<[string], ClockRow>;
  /** Prepared at the first write: a read-only store older than step 12 has no policy digest column. */
  #schedulerStatement: Statement<[SchedulerRow]> | undefined;
  readonly #insertInvocation: Statement<[InvocationRow]>;
  readonly #closeInvocation: Statement<[InvocationCloseRow]>;
  /** Prepared at the first write: a read-only store older than step 15 has no withheld reason. */
  #toolActionStatements:
    | {
        readonly insert: Statement<[ToolActionRow]>;
        readonly insertFenced: Statement<[ToolActionRow, string, number]>;
        readonly settle: Statement<[ToolActionSettleRow]>;
      }
    | undefined;
  readonly #db: Database;
  /** Compare-and-set updates of a tool action, one per set of columns a step writes, fenced or not. */
  readonly #casToolAction = new Map<number, Statement<[ToolActionSettleRow, ...(string | number)[]]>>();
  /** Prepared at the first close: a read-only store older than step 13 has no chain columns. */
  #history: HistoryStatements | undefined;
  readonly #resolve: Statement<[{ id: string; resolution: string; updated_at: string }]>;
  /** Prepared at the first decision: a read-only store older than step 14 has no operator chain. */
  #decisions: DecisionStatements | undefined;
  /** Prepared at the first service write: a read-only store older than step 17 has no participant services. */
  #services:
    | { readonly insert: Statement<[ServiceRow]>; readonly update: Statement<[ServiceRow]> }
    | undefined;
  /** Prepared at the first pacing deviation: a read-only store older than step 20 has no such table. */
  #pacing: Statement<[PacingDeviationRow]> | undefined;
  /** Prepared at the first approval: a read-only store older than step 16 has no approval column. */
  #approvals: ApprovalStatements | undefined;

  get #upsertScheduler(): Statement<[SchedulerRow]> {
    this.#schedulerStatement ??= this.#db.prepare(
      upsert("schedulers", SCHEDULER, ["participant_address", "policy_address"]),
    );
    return this.#schedulerStatement;
  }

  get #toolActions() {
    this.#toolActionStatements ??= {
      insert: this.#db.prepare(insert("tool_actions", TOOL_ACTION)),
      // The fence rides in the insert as its invocation_id, null unless the lease is held. Not as
      // INSERT … SELECT … WHERE: measured, SQLite ran that form about twice as slow as VALUES, far
      // more than the separate read it saves.
      insertFenced: this.#db.prepare(
        insert("tool_actions", TOOL_ACTION).replace(
          "@invocation_id",
          `CASE WHEN ${FENCE_HELD} THEN @invocation_id END`,
        ),
      ),
      settle: this.#db.prepare(`UPDATE tool_actions SET ${assignments(SETTLE_COLUMNS, [])} WHERE id = @id`),
    };
    return this.#toolActionStatements;
  }

  get #insertToolAction(): Statement<[ToolActionRow]> {
    return this.#toolActions.insert;
  }

  get #insertFencedToolAction(): Statement<[ToolActionRow, string, number]> {
    return this.#toolActions.insertFenced;
  }

  get #settleToolAction(): Statement<[ToolActionSettleRow]> {
    return this.#toolActions.settle;
  }

  /** Prepared at the first admitted open: the revision of a participant's service record. */
  #serviceRevision: Statement<[string], { revision: number | bigint }> | undefined;

  /** `prepareApart` false prepares every event row on this thread (SqliteStoreOptions.prepareEventsApart). */
  readonly #prepareApart: boolean;
  #preparedApart = 0;

  /** History events whose rows came from a worker thread. */
  get preparedApart(): number {
    return this.#preparedApart;
  }

  constructor(db: Database, leases: SqliteLeases, commits: GroupCommit, prepareApart = true) {
    this.#db = db;
    this.#prepareApart = prepareApart;
    this.#commits = commits;
    this.#leases = leases;
    this.#upsertClock = db.prepare(upsert("clocks", CLOCK, ["clock_address"]));
    this.#selectClock = db.prepare("SELECT * FROM clocks WHERE clock_address = ?");
    this.#insertInvocation = db.prepare(insert("invocations", INVOCATION));
    // A close sets only the columns a close changes: SQLite rewrites an index only when a column it
    // holds is assigned, so the identity and time indexes stay untouched.
    this.#closeInvocation = db.prepare(
      `UPDATE invocations SET ${assignments(CLOSE_COLUMNS, [])} WHERE id = @id AND state = 'running'`,
    );

    this.#resolve = db.prepare(`UPDATE tool_actions SET resolution = @resolution, updated_at = @updated_at
      WHERE id = @id AND settlement = 'indeterminate' AND resolution IS NULL`);
  }

  /** Upserts the clock. */
  saveClock(clock: ClockRecord): Answer<void> {
    return this.#immediate(() => {
      this.#upsertClock.run(clockRow(clock));
    });
  }

  /** Reads, changes and writes the clock under one write lock, so concurrent changes never overwrite each other. */
  updateClock(initial: ClockRecord, change: ClockChange): Answer<ClockRecord> {
    // No fsync, as for a settlement: nothing durable may rest on an advance the WAL lost to power
    // failure, because whatever acts on it (an invocation opening at the new tick, in this process
    // or another) commits with fsync after it in the same WAL, which makes the advance durable too.
    // Lost alone, the clock restarts from the last durable tick, where no one was running.
    return this.#immediate(() => {
      const row = this.#selectClock.get(initial.clockAddress);
      const next = applyClockChange(row ? clockRecord(row) : initial, change);
      this.#upsertClock.run(clockRow(next));
      return next;
    }, "normal");
  }

  /** Upserts a scheduler under the fence. */
  saveScheduler(scheduler: SchedulerRecord, fence: Fence | undefined): Answer<void> {
    return this.#immediate(() => {
      this.#leases.check(fence);
      this.#upsertScheduler.run(schedulerRow(scheduler));
    });
  }

  /** Inserts the running invocation and its scheduler together, with the clock's change when given. */
  openInvocation(
    invocation: InvocationRecord,
    scheduler: SchedulerRecord,
    fence: Fence | undefined,
    clock: ClockFold | undefined,
    admission?: ServiceAdmission,
  ): Answer<void> {
    return this.#immediate(() => {
      this.#leases.check(fence);
      if (admission) {
        // Read in the open's own write transaction: a control stored by any process is seen here.
        this.#serviceRevision ??= this.#db.prepare<[string], { revision: number | bigint }>(
          "SELECT revision FROM participant_services WHERE participant_address = ?",
        );
        const row = this.#serviceRevision.get(admission.participantAddress);
        const stored = row === undefined ? undefined : Number(row.revision);
        if (stored !== admission.revision) throw serviceMoved(admission, stored);
      }
      if (clock) {
        const row = this.#selectClock.get(clock.expected.clockAddress);
        this.#upsertClock.run(clockRow(foldClock(row && clockRecord(row), clock)));
      }
      this.#insertInvocation.run(invocationRow(invocation));
      this.#upsertScheduler.run(schedulerRow(scheduler));
    });
  }

  /** Inserts a tool action claim; the unique keys refuse a duplicate. */
  insertToolAction(action: ToolActionRecord, fence: Fence | undefined): Answer<void> {
    return this.#immediate(() => {
      const row = toolActionRow(action);
      if (fence === undefined) {
        this.#insertToolAction.run(row);
        return;
      }
      try {
        this.#insertFencedToolAction.run(row, fence.participantAddress, fence.token);
      } catch (error) {
        // A lost fence nulls a NOT NULL cell; the lease is read only then, to throw LeaseLostError as before.
        if (codeOf(error) === "SQLITE_CONSTRAINT_NOTNULL") this.#leases.check(fence);
        throw error;
      }
    });
  }

  /** Replaces a tool action only while it is in `expectedPhase`. */
  updateToolAction(
    action: ToolActionRecord,
    expectedPhase: ToolActionPhase,
    fence: Fence | undefined,
  ): Answer<boolean> {
    const row = toolActionSettleRow(action);
    // A settlement need not wait for fsync. Lost to power failure (never to a crashed process), it
    // leaves the action admitted or dispatched, and a restart settles those as withheld or
    // indeterminate: the close rules, never a second effect. The claim and the dispatch stay FULL,
    // and their fsync also makes every earlier commit in the WAL durable.
    return this.#immediate(
      () => {
        const cas = this.#cas(row, fence !== undefined);
        if (fence === undefined) return cas.run(row, expectedPhase).changes > 0;
        if (cas.run(row, expectedPhase, fence.participantAddress, fence.token).changes > 0) return true;
        // The fence rides in the update (one statement, not a read first); only when nothing changed
        // is it read, to throw for a lost lease as before rather than report a phase that moved on.
        this.#leases.check(fence);
        return false;
      },
      action.phase === "settled" ? "normal" : "full",
    );
  }

  /** Closes an open invocation with its settlements, events and scheduler, all or nothing. */
  commitInvocation(commit: InvocationCommit, fence: Fence | undefined): Answer<void> {
    return this.commitInvocations([commit], fence);
  }

  /**
   * Closes several open invocations in one transaction, all or nothing. The closes are all taken
   * before the transaction begins: building them does not hold the file's write lock.
   */
  commitInvocations(taken: Iterable<InvocationCommit>, fence: Fence | undefined): Answer<void> {
    this.#history ??= historyStatements(this.#db);
    const history = this.#history;
    const { commits, pipeline } = this.#taken(taken, history);
    try {
      const answer = this.#immediate(() => {
        try {
          this.#writeCommits(commits, pipeline, history, fence);
        } finally {
          pipeline?.close();
        }
      });
      // Queued for the turn's end: a commit that never runs (its store closed) still ends the thread.
      if (pipeline !== undefined && answer instanceof Promise)
        answer.finally(() => pipeline.close()).catch(() => undefined);
      return answer;
    } catch (error) {
      pipeline?.close();
      throw error;
    }
  }

  /**
   * Takes the closes; from `PREPARE_APART_FROM` of them (a recovery's), sends each to a worker
   * thread that prepares its event rows while this one takes the rest and then writes.
   */
  #taken(
    taken: Iterable<InvocationCommit>,
    history: HistoryStatements,
  ): { commits: readonly InvocationCommit[]; pipeline: EventRowPipeline | undefined } {
    if (Array.isArray(taken) && taken.length < PREPARE_APART_FROM)
      return { commits: taken as readonly InvocationCommit[], pipeline: undefined };
    const commits: InvocationCommit[] = [];
    let pipeline: EventRowPipeline | undefined;
    try {
      for (const commit of taken) {
        commits.push(commit);
        if (pipeline !== undefined) pipeline.add(commit.events, commit.anchor ?? UNANCHORED);
        else if (commits.length === PREPARE_APART_FROM && this.#prepareApart) {
          // Read outside the transaction; it confirms them before using any answer.
          const heads = storedChains(history);
          pipeline = EventRowPipeline.start({
            lastSequence: history.lastSequence.get() ?? 0,
            previous: (participant, anchor) => heads.previous(participant, anchor),
          });
          for (const early of commits) pipeline?.add(early.events, early.anchor ?? UNANCHORED);
        }
      }
    } catch (error) {
      // A close that could not be taken ends the commit before it begins: so does its thread.
      pipeline?.close();
      throw error;
    }
    pipeline?.flush();
    return { commits, pipeline };
  }

  #writeCommits(
    commits: readonly InvocationCommit[],
    pipeline: EventRowPipeline | undefined,
    history: HistoryStatements,
    fence: Fence | undefined,
  ): void {
    this.#leases.check(fence);
    // A transaction of several closes (a recovery's) writes many pages: its checkpoint runs later.
    if (commits.length > 1) this.#commits.deferCheckpoint();
    // Within the transaction only each scheduler's last state is ever seen: write that one alone.
    const last = new Map<string, SchedulerRecord>();
    for (const { scheduler } of commits) {
      last.set(JSON.stringify([scheduler.participantAddress, scheduler.policyAddress]), scheduler);
    }
    // Under the write lock the next sequence is max + 1 (commit order without gaps), known before
    // the insert because each event's chain digest covers its sequence.
    let sequence = history.lastSequence.get() ?? 0;
    const chains = storedChains(history, new Map());
    const apart = pipeline?.confirm(sequence, (p, anchor) => chains.previous(p, anchor))
      ? pipeline
      : undefined;
    for (const [index, commit] of commits.entries()) {
      // A close changed since it was handed over (another event, one fewer) is prepared here, and all after it.
      apart?.matches(index, commit.events.length);
      if (this.#closeInvocation.run(invocationCloseRow(commit.invocation)).changes === 0) {
        throw new StoreConflictError(`invocation ${commit.invocation.id} is not open`);
      }
      for (const action of commit.toolActions) {
        // A claim settles in place (its settlement columns only); one never claimed is inserted whole.
        if (this.#settleToolAction.run(toolActionSettleRow(action)).changes === 0) {
          this.#insertToolAction.run(toolActionRow(action));
        }
      }
      // The events of a close share their frame's objects: each is packed once per close.
      const packed: PackCache = new Map();
      for (const draft of commit.events) {
        sequence += 1;
        const row = apart?.next();
        if (row) this.#preparedApart += 1;
        // Bound by position, each cell once: no row object per event, no lookup of names.
        history.insertEvent.run(
          sequence,
          draft.participant_address,
          draft.episode_id,
          draft.action_instance_id,
          row ? row.body : packBody(draft, draft, packed),
          row
            ? chains.adopt(draft.participant_address, commit.anchor ?? UNANCHORED, row.digest, sequence)
            : chains.linkAt(draft, sequence, commit.anchor),
        );
      }
    }
    for (const head of chains.heads()) history.upsertChain.run(head);
    for (const scheduler of last.values()) this.#upsertScheduler.run(schedulerRow(scheduler));
  }

  /** Records a resolution on an indeterminate, unresolved tool action. */
  recordResolution(
    id: string,
    resolution: ResolutionRecord,
    decision: OperatorDecisionDraft,
  ): Answer<boolean> {
    return this.#immediate(() => {
      const row = { id, resolution: JSON.stringify(resolution), updated_at: resolution.resolvedAt };
      if (this.#resolve.run(row).changes === 0) return false;
      this.#appendDecision(decision);
      return true;
    });
  }

  /** Sets an admitted tool action's approval when its current one is in state `expected`, with its decision. */
  recordApproval(
    id: string,
    approval: ApprovalRecord,
    expected: ApprovalState | undefined,
    decision: OperatorDecisionDraft | undefined,
  ): Answer<boolean> {
    return this.#immediate(() => {
      this.#approvals ??= approvalStatements(this.#db);
      const row = {
        id,
        approval: JSON.stringify(approval),
        updated_at: approval.decidedAt ?? approval.requestedAt,
      };
      const changed =
        expected === undefined
          ? this.#approvals.hold.run(row).changes
          : this.#approvals.decide.run({ ...row, expected }).changes;
      if (changed === 0) return false;
      if (decision) this.#appendDecision(decision);
      return true;
    });
  }

  /** Appends a decision and saves the schedulers it changes, under one write lock, once the fence holds. */
  recordDecision(
    decision: OperatorDecisionDraft,
    schedulers: readonly SchedulerRecord[],
    fence: Fence | undefined,
  ): Answer<OperatorDecision> {
    return this.#immediate(() => {
      this.#leases.check(fence);
      for (const scheduler of schedulers) this.#upsertScheduler.run(schedulerRow(scheduler));
      return this.#appendDecision(decision);
    });
  }

  /** Writes a participant's service record over the revision before it, with its decision, in one transaction. */
  saveParticipantService(
    record: ParticipantServiceRecord,
    decision?: OperatorDecisionDraft,
  ): Answer<boolean> {
    return this.#immediate(() => {
      this.#services ??= {
        insert: this.#db.prepare(
          `${insert("participant_services", SERVICE_COLUMNS)} ON CONFLICT (participant_address) DO NOTHING`,
        ),
        update: this.#db.prepare(
          "UPDATE participant_services SET revision = @revision, service = @service, " +
            "control_actions = @control_actions, clock_generation = @clock_generation, episode = @episode, " +
            "episode_history = @episode_history, updated_at = @updated_at " +
            "WHERE participant_address = @participant_address AND revision = @revision - 1",
        ),
      };
      const row = serviceRow(record);
      const written = record.revision === 1 ? this.#services.insert.run(row) : this.#services.update.run(row);
      if (written.changes === 0) return false;
      if (decision) this.#appendDecision(decision);
      return true;
    });
  }

  /** Records a pacing deviation once per participant and ref. */
  recordPacingDeviation(record: PacingDeviationRecord): Answer<boolean> {
    return this.#immediate(() => {
      this.#pacing ??= this.#db.prepare(
        `${insert("pacing_deviations", PACING_DEVIATION_COLUMNS)} ON CONFLICT (participant_address, ref) DO NOTHING`,
      );
      return this.#pacing.run(pacingDeviationRow(record)).changes > 0;
    });
  }

  /** Chains a decision after the stored head and writes it and the new head (inside the caller's transaction). */
  #appendDecision(draft: OperatorDecisionDraft): OperatorDecision {
    this.#decisions ??= decisionStatements(this.#db);
    const row = this.#decisions.head.get();
    const decision = appendDecision(row ? decisionHead(row) : EMPTY_OPERATOR_CHAIN, draft);
    this.#decisions.insert.run(decisionRow(decision));
    this.#decisions.upsertHead.run({ id: 1, ...headAfter(decision) });
    return decision;
  }

  /**
   * The compare-and-set update writing the columns `row` sets (prepared once per set), bound as the
   * row, the expected phase and, when `fenced`, the fence's participant and token.
   */
  #cas(row: ToolActionSettleRow, fenced: boolean) {
    const cells = row as unknown as Record<string, unknown>;
    let key = fenced ? 1 : 0;
    for (let i = 0; i < SETTLE_COLUMNS.length; i += 1)
      if (cells[SETTLE_COLUMNS[i] as string] !== null) key |= 2 << i;
    let statement = this.#casToolAction.get(key);
    if (statement === undefined) {
      const columns = setColumns(row, SETTLE_COLUMNS);
      statement = this.#db.prepare(
        `UPDATE tool_actions SET ${assignments(columns, [])} WHERE id = @id AND phase = ?${fenced ? ` AND ${FENCE_HELD}` : ""}`,
      );
      this.#casToolAction.set(key, statement);
    }
    return statement;
  }

  /**
   * Runs `work` under `BEGIN IMMEDIATE` (a writer waits for the lock up front), at once or grouped
   * with this turn's other writes; `normal` commits without fsync (WAL order kept).
   */
  #immediate<T>(work: () => T, durability: Durability = "full"): Answer<T> {
    return this.#commits.write(work, durability);
  }
}

/** A linker of the chains whose heads `history` reads; `shared` keeps one commit's shared texts. */
function storedChains(history: HistoryStatements, shared?: CanonicalCache): ChainLinker {
  return new ChainLinker((participant) => {
    const row = history.selectChain.get(participant);
    return row && chainHead(row);
  }, shared);
}

/** The statements a close appends history and moves chain heads with. */
interface HistoryStatements {
  /** Bound as sequence, participant, episode, action instance, packed body, chain digest. */
  readonly insertEvent: Statement<[number, string, string, string, string, string]>;
  readonly lastSequence: Statement<[], number>;
  readonly selectChain: Statement<[string], ChainRow>;
  readonly upsertChain: Statement<[ChainHead]>;
}

function historyStatements(db: Database): HistoryStatements {
  return {
    insertEvent: db.prepare(
      "INSERT INTO history_events (sequence, participant_address, episode_id, action_instance_id, body, chain_digest) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    lastSequence: db.prepare<[], number>("SELECT coalesce(max(sequence), 0) FROM history_events").pluck(),
    selectChain: db.prepare("SELECT * FROM history_chains WHERE participant_address = ?"),
    upsertChain: db.prepare(upsert("history_chains", CHAIN_COLUMNS, ["participant_address"])),
  };
}

/** The statements the operator chain is appended with. */
interface DecisionStatements {
  readonly head: Statement<[], DecisionHeadRow>;
  readonly insert: Statement<[Required<DecisionRow>]>;
  readonly upsertHead: Statement<[DecisionHeadRow & { id: number }]>;
}

function decisionStatements(db: Database): DecisionStatements {
  return {
    head: db.prepare("SELECT head_digest, head_sequence, decisions FROM operator_chain WHERE id = 1"),
    insert: db.prepare(insert("operator_decisions", DECISION_COLUMNS)),
    upsertHead: db.prepare(
      upsert("operator_chain", ["id", "head_digest", "head_sequence", "decisions"], ["id"]),
    ),
  };
}

/** The compare-and-set updates of a tool action's approval: first held, then decided or expired. */
interface ApprovalStatements {
  readonly hold: Statement<[{ id: string; approval: string; updated_at: string }]>;
  readonly decide: Statement<[{ id: string; approval: string; updated_at: string; expected: string }]>;
}

function approvalStatements(db: Database): ApprovalStatements {
  const set =
    "UPDATE tool_actions SET approval = @approval, updated_at = @updated_at WHERE id = @id AND phase = 'admitted'";
  return {
    hold: db.prepare(`${set} AND approval IS NULL`),
    decide: db.prepare(`${set} AND json_extract(approval, '$.state') = @expected`),
  };
}

function insert(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`;
}

function upsert(table: string, columns: readonly string[], key: readonly string[]): string {
  return `${insert(table, columns)} ON CONFLICT (${key.join(", ")}) DO UPDATE SET ${fromExcluded(columns, key)}`;
}

function assignments(columns: readonly string[], key: readonly string[]): string {
  return columns
    .filter((c) => !key.includes(c))
    .map((c) => `${c} = @${c}`)
    .join(", ");
}
