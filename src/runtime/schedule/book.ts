import type {
  ClockRecord,
  ControlPlaneStore,
  Fence,
  SchedulerRecord,
  ServiceAdmission,
} from "../../store/index.js";
import { BookClocks, type InvocationClock, StepClockMovedError } from "../clock/index.js";
import { failureOf, failuresOf, type ParticipantFailure } from "../errors.js";
import { ledgerUnderPolicy } from "../v3/index.js";
import { dueTicks } from "./cadence.js";
import { ParticipantLeases, type ParticipantShare, shareTeller } from "./leases.js";
import { scheduleKey as key, type ScheduleSpec, specOf } from "./plan.js";
import {
  assertSameControls,
  changedPolicies,
  firstRecord,
  resumedRecords,
  type SegmentStart,
  upgradedRecord,
} from "./scheduler-record.js";

/** Actions that became due for one schedule in one step. */
export interface DueWork {
  readonly participantAddress: string;
  readonly policyAddress: string;
  readonly ticks: readonly number[];
}

/**
 * What a participant's execution service says about running it (docs/guide/operations.md): whether it
 * admits new work, and the generation and episode its invocations carry.
 */
export interface ServiceView {
  readonly accepting: boolean;
  readonly generation: number;
  /** The stored record's revision as read: an open is admitted only while the record is still at it. */
  readonly revision?: number;
  readonly episodeId?: string;
  /** Torn down (RAES's `terminated`): no control starts it again, so its schedules have nothing left to run. */
  readonly tornDown?: boolean;
}

/** Options of `ScheduleBook.load`. */
export interface ScheduleBookOptions {
  readonly store: ControlPlaneStore;
  readonly specs: readonly ScheduleSpec[];
  readonly now: () => string;
  readonly ownerId: string;
  readonly leaseTtlMs: number;
  /** Wall clock in epoch milliseconds, to renew leases only when half their lifetime has passed. */
  readonly nowMs: () => number;
  /** Told this process's share of the participants whenever it changed, at a step boundary. */
  /** Where the keep-alive tells a store outage (`ParticipantLeases`). */
  readonly log?: (line: string) => void;
  readonly onShare?: (share: ParticipantShare) => void;
  /** Settles interrupted invocations of participants this owner has just taken. */
  readonly recover: (
    participants: ReadonlySet<string>,
    fenceFor: (p: string) => Fence | undefined,
    /** Claims this process knows never ran (`RecoveryOptions.unanswered`). */
    unanswered?: ReadonlySet<string>,
  ) => Promise<void>;
  /**
   * Settles what the taken participants' interrupted invocations still hold (v3 reservations), once
   * they are recovered and loaded: a participant taken over mid-run must give its pools back too.
   */
  readonly settleTaken?: (book: ScheduleBook, participants: ReadonlySet<string>) => Promise<void>;
  /** Told each record the book takes after a commit, and (awaited) the records it just read from the store. */
  readonly records?: {
    readonly committed: (record: SchedulerRecord) => void;
    readonly read: (records: readonly SchedulerRecord[]) => Promise<void>;
  };
  /** A v2 schedule's continuation at the start of a segment (drawn from `tick`), to spread into its record. */
  readonly segmentStart?: SegmentStart;
  /**
   * Accept a policy whose digest differs from the stored one (the manager then starts a new segment):
   * who allowed it and why, recorded as a `policy_change` operator decision with the schedule's new record.
   */
  readonly policyChange?: { readonly operator: string; readonly note: string };
}

/** The manager's durable bookkeeping: clocks, scheduler records and leases of owned participants. */
export class ScheduleBook {
  readonly #o: ScheduleBookOptions;
  readonly #clocks: BookClocks;
  readonly #schedulers = new Map<string, SchedulerRecord>();
  readonly #leases: ParticipantLeases;
  readonly #uncertain = new Set<string>();
  /** Claims of the uncertain commits that this process knows never ran, for their recovery. */
  readonly #unanswered = new Set<string>();
  readonly #tellShare: () => void;
  #policyChanges: ScheduleSpec[] = [];
  #services: ReadonlyMap<string, ServiceView> = new Map();
  /** Each participant's count of execution resets as last read from its service (`honourExecutionResets`). */
  #executionResets: ReadonlyMap<string, number> = new Map();

  private constructor(options: ScheduleBookOptions) {
    this.#o = options;
    this.#clocks = new BookClocks(options.store, options.now);
    this.#leases = new ParticipantLeases({
      ...options,
      participants: [...new Set(options.specs.map((s) => s.participantAddress))],
    });
    this.#tellShare = shareTeller(this.#leases, { shareChanged: (share) => options.onShare?.(share) });
  }

  /** Loads or initialises clocks, takes leases, recovers what it took and loads scheduler records. */
  static async load(options: ScheduleBookOptions): Promise<ScheduleBook> {
    const book = new ScheduleBook(options);
    // Before the first write (clocks, leases): a store whose schedules run under another policy.
    const everyone = new Set(options.specs.map((spec) => spec.participantAddress));
    const allow = options.policyChange !== undefined;
    book.#policyChanges = await changedPolicies(options.store, options.specs, everyone, allow);
    for (const spec of options.specs) {
      await book.#clocks.load(spec.policy.clockAddress);
    }
    try {
      await book.#takeLeases(true);
    } catch (error) {
      // A refused open (such as another stochastic control) must not keep the participants' leases.
      await book.releaseLeases();
      throw error;
    }
    return book;
  }

  /** The store a step's writes go through: none commits before the step's clock change (StepClock). */
  get store(): ControlPlaneStore {
    return this.#clocks.store;
  }

  /** Participants whose scheduler lease this manager holds. */
  ownedParticipants(): ReadonlySet<string> {
    return this.#leases.owned();
  }

  /** This process's share of the participants, as of its last step boundary. */
  share(): ParticipantShare {
    return this.#leases.share();
  }

  /** The fencing token writes for this participant must present. */
  fenceFor(participantAddress: string): Fence | undefined {
    return this.#leases.fenceFor(participantAddress);
  }

  /**
   * Reads the owned schedulers' records from the store, creating missing ones. A watermark behind
   * the clock skips the ticks it missed; when `catchUp`, the current tick itself stays due, so the
   * run at open executes it (its invocation never opened, or the watermark would be at it). A running
   * schedule `handedOver` at a step boundary keeps a watermark at most `keepSteps` steps behind, so
   * the ticks between its old owner's last step and this one's run here instead of being lost.
   */
  async reloadSchedulers(
    participants: ReadonlySet<string> = this.ownedParticipants(),
    catchUp = false,
    handedOver: ReadonlySet<string> = new Set(),
    keepSteps = 0,
  ): Promise<void> {
    const read: SchedulerRecord[] = [];
    for (const spec of this.#o.specs) {
      if (!participants.has(spec.participantAddress)) continue;
      const clock = this.#clocks.get(spec.policy.clockAddress);
      const from = (clock?.tick ?? 0) - (catchUp ? 1 : 0);
      let record = await this.#o.store.getScheduler(spec.participantAddress, spec.policy.address);
      if (!record) {
        record = firstRecord(spec, clock, from, this.#o);
        await this.#saveScheduler(record);
      } else if (upgradedRecord(record, spec, "")) {
        const previous = record.policyDigest;
        record = upgradedRecord(record, spec, this.#o.now()) ?? record;
        if (previous !== undefined && previous !== spec.policyDigest) {
          // A v3 ledger takes the new limits and the generation the change's reset starts (the clock's
          // next) in the decision's transaction: no commit may come to rewrite them (a completed schedule).
          if (record.resources && spec.v3)
            record = {
              ...record,
              resources: ledgerUnderPolicy(spec.v3, record.resources, (clock?.generation ?? 1) + 1),
            };
          await this.#recordPolicyChange(record, previous);
        } else await this.#saveScheduler(record);
      }
      // A schedule taken over (or resumed elsewhere) starts from now: ticks it missed are not replayed later.
      const kept =
        handedOver.has(spec.participantAddress) &&
        record.lifecycle === "running" &&
        (clock?.tick ?? 0) - record.tick <= keepSteps * spec.progression.stepTicks;
      if (clock && record.segment === clock.segment && record.tick < from && !kept)
        record = { ...record, tick: from };
      this.#schedulers.set(key(spec.participantAddress, spec.policy.address), record);
      this.#uncertain.delete(key(spec.participantAddress, spec.policy.address));
      read.push(record);
    }
    await this.#o.records?.read(read);
    // Taken over or loaded after the services were read: honoured before any of its work runs.
    await this.#honour(read);
  }

  /**
   * One step of every clock, then `run` on each owned schedule's due ticks; undefined while paused.
   * The due work is found from the clock the step is expected to reach and its first write commits
   * the clock change (BookClocks.step); when the clock moved elsewhere first, nothing was written and
   * the due work is found and run again from the clock as it stands.
   */
  async step<T>(run: (due: DueWork[]) => Promise<T>): Promise<T | undefined> {
    await this.#takeLeases();
    await this.#settleUncertain();
    await this.#clocks.step(this.#o.specs);
    // Work that failed on its own before the moved clock was found is marked uncertain and skipped
    // when the step runs again; its error is still the step's.
    const earlier: ParticipantFailure[] = [];
    for (;;) {
      let ran: T | undefined;
      try {
        const due = await this.#dueAfterStep();
        ran = due && (await run(due));
        await this.#clocks.finish();
      } catch (error) {
        if (this.#clocks.moved) {
          earlier.push(...failuresOf(error, (e) => e instanceof StepClockMovedError));
          this.#clocks.again();
          continue;
        }
        await this.#clocks.abandon();
        return this.dropLost(earlier.length > 0 ? failureOf([...earlier, ...failuresOf(error)]) : error);
      }
      return earlier.length > 0 ? this.dropLost(failureOf(earlier)) : ran;
    }
  }

  async #dueAfterStep(): Promise<DueWork[] | undefined> {
    if (this.#clocks.paused()) return undefined;
    // A segment this schedule has not seen began at most one step ago (else its reset would have run it).
    const due = await this.#due((spec, clock) => Math.max(-1, clock.tick - spec.progression.stepTicks));
    // Schedules with nothing due only move their watermark: last, so that a step's first write is an
    // invocation open, which carries the step's clock change.
    return [...due.filter((d) => d.ticks.length > 0), ...due.filter((d) => d.ticks.length === 0)];
  }

  /**
   * The actions due at the clock's current tick, without moving it: what runs at open, right after a
   * reset and on resume, as RAES runs a cadence's start tick when the plan is applied. Empty while paused.
   */
  async dueNow(): Promise<DueWork[]> {
    await this.#takeLeases();
    await this.#settleUncertain();
    if (this.#clocks.paused()) return [];
    return this.#due((_spec, clock) => clock.tick - 1);
  }

  /** Each owned schedule's due ticks up to the clock; a schedule entering a new segment starts after `from`. */
  async #due(from: (spec: ScheduleSpec, clock: ClockRecord) => number): Promise<DueWork[]> {
    const due: DueWork[] = [];
    for (const spec of this.#o.specs) {
      const k = key(spec.participantAddress, spec.policy.address);
      const clock = this.#clocks.get(spec.policy.clockAddress);
      let record = this.#schedulers.get(k);
      if (!clock || !record || !this.#leases.has(spec.participantAddress)) continue;
      if (record.segment !== clock.segment) {
        record = {
          ...record,
          // RAES restarts a completed schedule in the new segment; a stopped one waits for resume.
          lifecycle: record.lifecycle === "completed" ? "running" : record.lifecycle,
          segment: clock.segment,
          tick: from(spec, clock),
          attempts: 0,
          cursor: 0,
          ...this.#o.segmentStart?.(spec, clock.segment, 0),
          updatedAt: this.#o.now(),
        };
        await this.#saveScheduler(record);
        this.updateScheduler(record);
      }
      const ticks = dueTicks(spec.cadence, record.tick, clock.tick);
      due.push({ participantAddress: spec.participantAddress, policyAddress: spec.policy.address, ticks });
    }
    return due;
  }

  /** Moves the schedule's watermark to the clock, so skipped or finished ticks are never run again. */
  async finishWindow(participantAddress: string, policyAddress: string): Promise<void> {
    const record = this.#schedulers.get(key(participantAddress, policyAddress));
    const spec = specOf(this.#o.specs, participantAddress, policyAddress);
    const clock = spec ? this.#clocks.get(spec.policy.clockAddress) : undefined;
    if (!record || !clock || record.tick >= clock.tick || !this.#leases.has(participantAddress)) return;
    const next = { ...record, tick: clock.tick, updatedAt: this.#o.now() };
    // A stopped schedule only moves its watermark in memory; nothing it owns changes while it is stopped.
    if (record.lifecycle === "running") await this.#saveScheduler(next);
    this.updateScheduler(next);
  }

  /** The schedule and its scheduler record when it may run an action now. */
  runnable(
    participantAddress: string,
    policyAddress: string,
  ): { spec: ScheduleSpec; scheduler: SchedulerRecord } | undefined {
    const k = key(participantAddress, policyAddress);
    const scheduler = this.#schedulers.get(k);
    const spec = specOf(this.#o.specs, participantAddress, policyAddress);
    if (!scheduler || !spec || this.#uncertain.has(k) || !this.#leases.has(participantAddress))
      return undefined;
    if (scheduler.lifecycle !== "running" || scheduler.attempts >= spec.policy.maxActionAttempts)
      return undefined;
    // A paused, drained or torn-down execution service (or a terminated episode) admits no new work.
    if (this.#services.get(participantAddress)?.accepting === false) return undefined;
    return { spec, scheduler };
  }

  /** The generation of a clock as this process last saw it (0 before it first moves). */
  generationOf(clockAddress: string): number {
    return this.#clocks.get(clockAddress)?.generation ?? 0;
  }

  /** The tick of a clock as this process last saw it. */
  tickOf(clockAddress: string): number {
    return this.#clocks.get(clockAddress)?.tick ?? 0;
  }

  /** Where the shared clock stands for an invocation of this schedule at this tick, with its service's generation and episode. */
  clockFor(spec: ScheduleSpec, tick: number): InvocationClock {
    const clock = this.#clocks.clockFor(spec, tick);
    const service = this.#services.get(spec.participantAddress);
    if (!service) return clock;
    return {
      ...clock,
      generation: service.generation,
      ...(service.episodeId === undefined ? {} : { episodeId: service.episodeId }),
    };
  }

  /** The shared clock with this address, as this book last saw it. */
  clock(clockAddress: string): ClockRecord | undefined {
    return this.#clocks.get(clockAddress);
  }

  /** The participants' execution services as last read from the store; absent participants run as before. */
  setServices(services: ReadonlyMap<string, ServiceView>): void {
    this.#services = services;
  }

  /** Whether a participant's execution service was torn down, as last read from the store. */
  tornDown(participantAddress: string): boolean {
    return this.#services.get(participantAddress)?.tornDown === true;
  }

  /** What a participant's next open is admitted under: its service record as last read (none without one). */
  admissionFor(participantAddress: string): ServiceAdmission | undefined {
    const revision = this.#services.get(participantAddress)?.revision;
    return revision === undefined ? undefined : { participantAddress, revision };
  }

  /**
   * RAES's execution reset of the schedules this process owns (docs/guide/operations.md, "Controlling one
   * participant"): `resets` holds each participant's count of execution resets as stored
   * (`executionResetsOf`). A schedule that has honoured fewer has its attempts and counters cleared and
   * runs again, unless it waits for an indeterminate tool action's resolution; one that has never been
   * stamped takes the count as honoured. The count is stored with the schedule, so a reset stored while
   * no runtime ran is honoured by whichever runtime next holds the participant.
   */
  async honourExecutionResets(resets: ReadonlyMap<string, number>): Promise<void> {
    this.#executionResets = resets;
    await this.#honour(this.describe());
  }

  /** Honours the execution resets last read on these schedules (a schedule loaded later, at once). */
  async #honour(records: readonly SchedulerRecord[]): Promise<void> {
    const resets = this.#executionResets;
    for (const record of records) {
      const count = resets.get(record.participantAddress);
      if (count === undefined || record.executionResets === count) continue;
      const next: SchedulerRecord =
        record.executionResets === undefined || record.executionResets > count
          ? { ...record, executionResets: count, updatedAt: this.#o.now() }
          : { ...clearedCounters(record), executionResets: count, updatedAt: this.#o.now() };
      await this.#saveScheduler(next);
      this.updateScheduler(next);
    }
  }

  /** Records the scheduler state an invocation committed. */
  updateScheduler(record: SchedulerRecord): void {
    this.#schedulers.set(key(record.participantAddress, record.policyAddress), record);
    this.#o.records?.committed(record);
  }

  /**
   * A commit failed: the store's view of this schedule is unknown until recovery runs. `unanswered`:
   * claims of it this process knows never ran (their callers heard a refusal).
   */
  markUncertain(participantAddress: string, policyAddress: string, unanswered: readonly string[] = []): void {
    // A step whose clock moved elsewhere before its first write wrote nothing: it runs again.
    if (this.#clocks.moved) return;
    this.#uncertain.add(key(participantAddress, policyAddress));
    for (const id of unanswered) this.#unanswered.add(id);
  }

  /** Pauses or resumes every clock, once each held participant that can load is (a step says why one cannot). */
  async setPaused(paused: boolean): Promise<void> {
    for (const p of this.#leases.unloaded()) await this.loadPending(new Set([p])).catch(() => undefined);
    await this.#clocks.setPaused(paused);
  }

  /** The schedules loaded under a changed (allowed) policy since the last call; each is reported once. */
  takePolicyChanges(): ScheduleSpec[] {
    const changes = this.#policyChanges;
    this.#policyChanges = [];
    return changes;
  }

  /** The log line of an allowed policy change: the policies, and who the decisions name. */
  policyChangeLine(changed: readonly ScheduleSpec[]): string {
    const policies = [...new Set(changed.map((spec) => spec.policy.address))].join(", ");
    return `policy changed (${policies}): a new segment starts under the new policy, recorded as a policy_change decision by ${this.#o.policyChange?.operator ?? "the operator"}`;
  }

  /** New segment at tick 0 and next generation; each schedule starts its new episode at its next due run. */
  async reset(): Promise<void> {
    await this.#clocks.reset();
  }

  /**
   * Restarts a stopped participant once every indeterminate tool action of it is resolved; the
   * schedulers it restarts and the operator's `resume` decision are one transaction.
   */
  async resumeParticipant(
    participantAddress: string,
    decision: { readonly operator: string; readonly note: string },
  ): Promise<void> {
    await this.loadPending(new Set([participantAddress])); // if held but not loaded: its records are older
    const records = this.describe().filter((r) => r.participantAddress === participantAddress);
    const resumed = await resumedRecords(this.#o, records, participantAddress);
    if (resumed.length === 0) return;
    const fence = this.fenceFor(participantAddress);
    await this.#clocks.store.recordDecision(
      { kind: "resume", subject: participantAddress, ...decision, decided_at: decisionAt(this.#o.now()) },
      resumed,
      ...(fence ? [fence] : []),
    );
    for (const record of resumed) this.updateScheduler(record);
  }

  /** Each owned and loaded schedule's lifecycle (never a record older than the store's). */
  describe(): SchedulerRecord[] {
    return [...this.#schedulers.values()].filter((r) => this.#leases.loaded(r.participantAddress));
  }

  /** After a failed step: forgets the leases another process took over, then throws the step's error. */
  async dropLost(error: unknown): Promise<never> {
    await this.#leases.dropLost();
    throw error;
  }

  /** Sends the next step's heartbeat now, beside the caller's read of the services (`ParticipantLeases.beatAhead`). */
  beatAhead(): void {
    this.#leases.beatAhead();
  }

  /** Forgets that heartbeat when the step fails before its rebalance. */
  dropAhead(): void {
    this.#leases.dropAhead();
  }

  /** Keeps the heartbeat and the held leases fresh between and during steps (`ParticipantLeases.startKeepAlive`). */
  startKeepAlive(): void {
    this.#leases.startKeepAlive();
  }

  /** Stops the keep-alive and keeps the leases as they are, to expire unless renewed by a step. */
  stopKeepAlive(): void {
    this.#leases.stopKeepAlive();
  }

  /**
   * Gives up every lease and leaves the live processes, so another process can take over at once.
   * Claims this process knows never ran (a close that could not read them back) are recovered first,
   * while it still holds them: only it knows their callers heard a refusal. Failing that, their next
   * owner recovers them by the general rules.
   */
  async releaseLeases(): Promise<void> {
    await this.recoverKnownNotRun();
    await this.#leases.releaseAll();
  }

  /**
   * For an open that failed: recovers what only this process knows (`recoverKnownNotRun`), while it
   * still holds the leases, then stops renewing them, so they expire as a dead process's do.
   */
  async giveUp(): Promise<void> {
    await this.recoverKnownNotRun();
    this.stopKeepAlive();
  }

  /**
   * Recovers the uncertain schedules now if any holds a claim this process knows never ran (a close
   * that could not read it back): only this process knows its caller heard a refusal. Never throws:
   * failing, the participant's next owner recovers it by the general rules.
   */
  async recoverKnownNotRun(): Promise<void> {
    if (this.#unanswered.size === 0) return;
    await this.#settleUncertain().catch((error: unknown) => {
      this.#o.log?.(
        `recovering the claims this process knows never ran failed (${error instanceof Error ? error.message : String(error)}); the participant's next owner recovers what is left`,
      );
    });
  }

  /** Outside a step, before acting on records: recovers and loads what is held but not loaded yet (of `only`). */
  async loadPending(only?: ReadonlySet<string>, catchUp = false): Promise<void> {
    let loaded: ReadonlySet<string> = new Set();
    await this.#leases.loadPending(async (taken, handedOver, keepSteps) => {
      loaded = taken;
      await assertSameControls(this.#o.store, this.#o.specs, taken);
      // A participant taken over mid-run: its stored policy must be this one (an allowed change was seen at open).
      await changedPolicies(this.#o.store, this.#o.specs, taken, this.#o.policyChange !== undefined);
      await this.#o.recover(taken, (p) => this.fenceFor(p));
      await this.reloadSchedulers(taken, catchUp, handedOver, keepSteps);
    }, only);
    // Once loaded (describe() lists them): what their interrupted invocations held is given back.
    if (loaded.size > 0) await this.#o.settleTaken?.(this, loaded);
  }

  /** At a step boundary: moves to this process's share, then recovers and loads what it took. */
  async #takeLeases(catchUp = false): Promise<void> {
    await this.#leases.rebalance();
    await this.loadPending(undefined, catchUp);
    this.#tellShare();
  }

  async #settleUncertain(): Promise<void> {
    if (this.#uncertain.size === 0) return;
    const participants = new Set<string>();
    for (const k of this.#uncertain) {
      const participant = k.split("\u0000")[0] ?? "";
      // A participant this owner lost is recovered by its new owner, never here.
      if (this.#leases.has(participant)) participants.add(participant);
      else this.#uncertain.delete(k);
    }
    if (participants.size === 0) {
      // Every one was lost: its new owner recovers it, without this process's hints.
      this.#unanswered.clear();
      return;
    }
    await this.#o.recover(participants, (p) => this.fenceFor(p), this.#unanswered);
    // Recovered, or another owner's to recover now: the hints are spent either way.
    this.#unanswered.clear();
    await this.reloadSchedulers(participants);
    await this.#o.settleTaken?.(this, participants);
  }

  /**
   * Saves a schedule's record under its changed policy with the `policy_change` operator decision that
   * names the change, in one transaction: the change is in the operator chain exactly when it took effect.
   */
  async #recordPolicyChange(record: SchedulerRecord, previous: string): Promise<void> {
    const by = this.#o.policyChange;
    // changedPolicies refused the open (or takeover) before any write when the change is not allowed.
    if (by === undefined || record.policyDigest === undefined) return this.#saveScheduler(record);
    const fence = this.fenceFor(record.participantAddress);
    await this.#clocks.store.recordDecision(
      {
        kind: "policy_change",
        subject: record.participantAddress,
        ...by,
        decided_at: decisionAt(this.#o.now()),
        policy_address: record.policyAddress,
        previous_policy_digest: previous,
        policy_digest: record.policyDigest,
      },
      [record],
      ...(fence ? [fence] : []),
    );
  }

  async #saveScheduler(record: SchedulerRecord): Promise<void> {
    const fence = this.fenceFor(record.participantAddress);
    await this.#clocks.store.saveScheduler(record, ...(fence ? [fence] : []));
  }
}

/** A decision's time with microseconds, as every stored time (the manager's clock may give milliseconds). */
function decisionAt(at: string): string {
  return /\.\d{3}Z$/.test(at) ? `${at.slice(0, -1)}000Z` : at;
}

/** A schedule after an execution reset: attempts and counters cleared and running again, unless it waits for an indeterminate tool action's resolution. */
function clearedCounters(record: SchedulerRecord): SchedulerRecord {
  const waits = record.lifecycle === "stopped" && record.stopReason === "tool_action_indeterminate";
  const { stopReason: _reason, ...rest } = record;
  return {
    ...(waits ? record : rest),
    lifecycle: waits ? record.lifecycle : "running",
    attempts: 0,
    cursor: 0,
    ...(record.activity
      ? {
          activity: {
            ...record.activity,
            lifecycle_state: waits ? record.activity.lifecycle_state : "running",
            attempted_actions: 0,
            succeeded_actions: 0,
            failed_actions: 0,
          },
        }
      : {}),
  };
}
