import type { ResourceBudgetEvent, ResourceLogEntry } from "../../records/index.js";
import type { ControlPlaneStore, SchedulerRecord } from "../../store/index.js";
import { scheduleKey } from "../schedule/index.js";
import { budgetEvents } from "../v3/index.js";

/** Budget events read from the store per page while a schedule's earlier ones are loaded. */
const LOAD_PAGE = 1000;

/** One v3 schedule's operations, one entry each, as its ledger's log keeps them but never cut. */
interface ScheduleOperations {
  readonly log: ResourceLogEntry[];
  /** The highest transition number (`seq`) recorded. */
  last: number;
  /** The store sequence of the last budget event loaded: where the next load starts. */
  loadedTo: number;
}

/**
 * Every budget transition of the v3 schedules this manager has held, in process (DESIGN §15,
 * docs/guide/operations.md#budget-events), so `RuntimeManager.resourceBudgetEvents()` can answer at once
 * and whole: a schedule's ledger row lists only its last 64 operations. A schedule read from the store
 * (at open, on a takeover, after an uncertain commit) has what the store keeps of it loaded first; every
 * record the manager commits afterwards adds its new transitions. It holds one entry per operation.
 */
export class BudgetEventRecord {
  readonly #store: ControlPlaneStore;
  readonly #schedules = new Map<string, ScheduleOperations>();

  constructor(store: ControlPlaneStore) {
    this.#store = store;
  }

  /** Adds the transitions a committed record's ledger carries beyond those recorded (at most one each write). */
  observe(record: SchedulerRecord): void {
    const ledger = record.resources;
    if (!ledger) return;
    const ops = this.#of(record);
    // Only the log's tail is new: walk back to the last recorded transition, then add forward.
    let from = ledger.log.length;
    while (from > 0 && (ledger.log[from - 1]?.seq ?? 0) > ops.last) from -= 1;
    for (const entry of ledger.log.slice(from)) add(ops, entry);
  }

  /**
   * Loads what the store keeps of records just read from it and not yet recorded: a schedule this
   * manager has not held, or one whose transitions moved on elsewhere or in an uncertain commit.
   */
  async loaded(records: readonly SchedulerRecord[]): Promise<void> {
    for (const record of records) {
      const ledger = record.resources;
      if (!ledger) continue;
      const ops = this.#of(record);
      // A ledger written before the store numbered its transitions (schema step 22): its log is all there is.
      if (ledger.events === undefined) {
        if (ops.log.length === 0) ops.log.push(...ledger.log);
        continue;
      }
      if (ledger.events <= ops.last) continue;
      for (;;) {
        const page = await this.#store.listBudgetEvents({
          participantAddress: record.participantAddress,
          afterSequence: ops.loadedTo,
          limit: LOAD_PAGE,
        });
        for (const row of page) {
          if (row.policyAddress === record.policyAddress && row.seq > ops.last) add(ops, row.entry);
          ops.loadedTo = row.sequence;
        }
        if (page.length < LOAD_PAGE) break;
      }
      // What the store did not give (never, short of a store that lost rows) the ledger's log still has.
      this.observe(record);
    }
  }

  /** The budget events of `records`' schedules, as `budgetEvents` lists them, from every recorded operation. */
  events(records: readonly SchedulerRecord[]): ResourceBudgetEvent[] {
    const whole = records.flatMap((r) => {
      const ops = this.#schedules.get(scheduleKey(r.participantAddress, r.policyAddress));
      return ops ? [{ ...r, resources: { log: ops.log, logged: ops.log.length } }] : [];
    });
    return budgetEvents(whole);
  }

  #of(record: SchedulerRecord): ScheduleOperations {
    const k = scheduleKey(record.participantAddress, record.policyAddress);
    let ops = this.#schedules.get(k);
    if (!ops) {
      ops = { log: [], last: 0, loadedTo: 0 };
      this.#schedules.set(k, ops);
    }
    return ops;
  }
}

/**
 * Records one transition as the ledger's log does: a commit or release settling the reserve just
 * before it replaces that entry (`budgetEvents` lists both), so there is one entry per operation.
 */
function add(ops: ScheduleOperations, entry: ResourceLogEntry): void {
  const previous = ops.log.at(-1);
  const settles =
    entry.transition !== "reserve" &&
    previous?.transition === "reserve" &&
    previous.operationId === entry.operationId;
  if (settles) ops.log[ops.log.length - 1] = entry;
  else ops.log.push(entry);
  if (entry.seq !== undefined) ops.last = Math.max(ops.last, entry.seq);
}
