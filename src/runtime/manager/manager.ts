import type { HistoryEvent } from "../../history/index.js";
import type { ControlOutcome, EpisodeOutcome, EpisodeRequest, Operation } from "../../operations/index.js";
import {
  controlEpisode,
  controlParticipant,
  decisionNote,
  newOwnerId,
  operatorIdentity,
} from "../../operations/index.js";
import type { ParticipantToolActionRefusal } from "../../port/index.js";
import {
  type ChainAnchor,
  type EpisodeTerminalReason,
  type ExecutionControlAction,
  jcsDigest,
  ParticipantControlCode,
  type ParticipantEpisodeState,
  type ParticipantExecutionServiceState,
  type ParticipantServiceRecord,
  type ResourceBudgetEvent,
  type ResourceBudgetStateView,
  serviceReadback,
} from "../../records/index.js";
import { type ControlPlaneStore, MemoryControlPlaneStore, openControlPlaneStore } from "../../store/index.js";
import { isoClock, preciseNow } from "../clock/index.js";
import {
  asLedgerError,
  ParticipantControlError,
  ParticipantsFailedError,
  RuntimeError,
  RuntimeErrorCode,
  survivedLeaseLoss,
} from "../errors.js";
import {
  buildContext,
  consumedLine,
  type InvocationContext,
  type InvocationSummary,
  lateResultLine,
  policyFrames,
  recoverInterruptedInvocations,
} from "../invocation/index.js";
import {
  type DueWork,
  type ParticipantShare,
  policyChangeBy,
  ScheduleBook,
  type ScheduleSpec,
  schedulePositions,
} from "../schedule/index.js";
import type { ResourcePoolStateView } from "../v3/index.js";
import {
  type AutonomousExecutionState,
  autonomousExecutionStates,
  type ContextViewOptions,
  type ParticipantContextView,
  type ParticipantHistoryView,
  type ParticipantStatusView,
  participantContextView,
  participantHistoryView,
  participantStatusView,
  type ViewSource,
} from "../views/index.js";
import { admitOpen } from "./admission.js";
import { checkedConcurrency, settleBounded } from "./bounded.js";
import { BudgetEventRecord } from "./budget-record.js";
import { type DueRunner, runDueTicks } from "./due.js";
import { jumpRefusal } from "./jump.js";
import {
  DEFAULT_LEASE_TTL_MS,
  type ParticipantControlOptions,
  type ParticipantEpisodeOptions,
  type RuntimeManagerOptions,
  type RuntimeObserver,
  type ServiceContext,
} from "./options.js";
import {
  type PacedRunOptions,
  type PacedRunSummary,
  runPaced,
  type StepOptions,
  type StepSummary,
} from "./paced-run.js";
import { ServicePacing } from "./service-pacing.js";
import { ensureServices, refreshServices } from "./services.js";
import { isV2Work, pauseV2, runV2Work, v2Hooks, v2Order } from "./v2.js";
import { newSharedPools, resourceViews, settleInterruptedHolds, type V3Run, v3Plans } from "./v3.js";

/** Owns the shared clock and one scheduler per participant, and runs every due autonomous action. */
export class RuntimeManager {
  readonly store: ControlPlaneStore;
  readonly #ownsStore: boolean;
  readonly #book: ScheduleBook;
  readonly #ctx: InvocationContext;
  readonly #observer: RuntimeObserver | undefined;
  readonly #v2: readonly ScheduleSpec[];
  readonly #concurrency: number;
  readonly #pacing: ServicePacing;
  readonly #v3: V3Run;
  readonly #services: ServiceContext;
  readonly #budgetEvents: BudgetEventRecord;
  #serial: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(
    store: ControlPlaneStore,
    ownsStore: boolean,
    book: ScheduleBook,
    ctx: InvocationContext,
    v2: readonly ScheduleSpec[],
    concurrency: number,
    pacing: ServicePacing,
    services: ServiceContext,
    budgetEvents: BudgetEventRecord,
    observer?: RuntimeObserver,
  ) {
    this.#budgetEvents = budgetEvents;
    this.#services = services;
    this.#concurrency = concurrency;
    this.#pacing = pacing;
    this.store = store;
    this.#ownsStore = ownsStore;
    this.#book = book;
    this.#ctx = ctx;
    this.#observer = observer;
    this.#v2 = v2;
    const throttled = observer?.resourceThrottled;
    this.#v3 = {
      plans: v3Plans(v2),
      shared: newSharedPools(),
      ...(throttled ? { onThrottle: (t) => throttled(t) } : {}),
    };
  }

  /**
   * Validates, registers, plans, takes scheduler leases, recovers interrupted invocations and starts.
   *
   * Starting runs the attempts due at the clock's current tick before `open` returns, as RAES's
   * start does: a cadence that starts at tick 0 has its first invocation (harness call, tool
   * actions, history) done when the manager is handed back, and the first `step` runs the next
   * cadence tick. A store reopened at a tick whose attempts already ran runs nothing again
   * (docs/guide/harness.md#what-open-and-reset-run).
   *
   * @example
   * const manager = await RuntimeManager.open({ model, manifest, runtime, store: "memory:" });
   * // The start tick's attempts have run: their events are already in manager.history().
   */
  static async open(options: RuntimeManagerOptions): Promise<RuntimeManager> {
    // Everything checked before a store is touched: a refusal here leaves nothing behind.
    const { manifest, limits, inFlight, specs, offers } = admitOpen(options);
    const ownsStore = typeof options.store === "string" || options.store === undefined;
    const store =
      typeof options.store === "string"
        ? await openControlPlaneStore(options.store)
        : (options.store ?? new MemoryControlPlaneStore());
    const nowMs = options.now ?? preciseNow;
    const now = isoClock(nowMs);
    const log = options.log ?? ((line: string) => process.stderr.write(`raes: ${line}\n`));
    // What each participant's hash chain starts from: the model and manifest this manager runs.
    const anchor: ChainAnchor = {
      scenario_digest: jcsDigest(options.model),
      manifest_digest: jcsDigest(options.manifest),
    };
    let opened: ScheduleBook | undefined;
    try {
      const policyOf = (policy: string) => options.model.autonomousPolicies[policy];
      const budgetEvents = new BudgetEventRecord(store);
      const book = await ScheduleBook.load({
        store,
        records: { committed: (r) => budgetEvents.observe(r), read: (r) => budgetEvents.loaded(r) },
        specs,
        now,
        ownerId: options.ownerId ?? newOwnerId(),
        leaseTtlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
        onShare: (share) => options.observer?.shareChanged?.(share),
        nowMs,
        log,
        ...v2Hooks,
        ...(options.allowPolicyChange ? { policyChange: policyChangeBy(options.allowPolicyChange) } : {}),
        recover: async (participants, fenceFor, unanswered) => {
          const consumed = await recoverInterruptedInvocations(store, {
            participants,
            now,
            fenceFor,
            policyOf,
            frameOf: policyFrames(options.model, options.runtime),
            anchor,
            ...(unanswered && unanswered.size > 0 ? { unanswered } : {}),
          });
          if (consumed.length > 0) log(consumedLine(consumed));
        },
        settleTaken: (held, participants) =>
          settleInterruptedHolds({ store: held.store, now }, held, participants),
      });
      const refused = options.observer?.toolActionRefused;
      const pacing = new ServicePacing(options.model, log);
      const ctx = buildContext({
        serviceHealth: pacing.health,
        model: options.model,
        runtime: options.runtime,
        store: book.store,
        limits,
        now,
        log,
        offers,
        anchor,
        ...(options.timers ? { timers: options.timers } : {}),
        ...(refused ? { onRefusal: (refusal: ParticipantToolActionRefusal) => refused(refusal) } : {}),
        onLate: (id, how) => {
          log(lateResultLine(id, how));
          options.observer?.lateResultDiscarded?.(id, how);
        },
      });
      const v2 = v2Order(specs);
      const services: ServiceContext = {
        specs,
        model: options.model,
        manifest: manifest,
        runtime: options.runtime,
        nowMs,
      };
      const manager = new RuntimeManager(
        store,
        ownsStore,
        book,
        ctx,
        v2,
        inFlight,
        pacing,
        services,
        budgetEvents,
        options.observer,
      );
      await pacing.load(store);
      await ensureServices(store, book, {
        specs,
        manifest: manifest,
        at: now(),
        start: options.startParticipants ?? true,
      });
      // Reservations a dead process held: settled as their invocations were (consumed, no measurement).
      await settleInterruptedHolds(ctx, book);
      const changed = book.takePolicyChanges();
      if (changed.length > 0) {
        log(book.policyChangeLine(changed));
        await book.reset();
      }
      // From here on a step may outlast a lease lifetime (an agent at work), and a paced run may
      // sleep longer than one between steps: the keep-alive holds the participants meanwhile.
      if (options.keepAlive ?? options.now === undefined) book.startKeepAlive();
      opened = book;
      // As RAES's apply: actions due at the clock's current tick run before it next advances.
      await manager.#exclusive(async () => manager.#run(await manager.#dueNow()));
      return manager;
    } catch (error) {
      // Failed, it keeps its leases as a dead process does: they expire, never renewed again.
      await opened?.giveUp();
      if (ownsStore) await store.close().catch(() => undefined);
      throw error;
    }
  }

  /** Advances the policy clock by n progression steps and runs every due action, at most `concurrency` at once. */
  step(n = 1, options: StepOptions = {}): Promise<StepSummary> {
    return this.#exclusive(async () => {
      const concurrency = checkedConcurrency(options.concurrency, this.#concurrency);
      const invocations: InvocationSummary[] = [];
      let steps = 0;
      for (let i = 0; i < n; i += 1) {
        // The store's execution services first: a control from any process takes effect at this
        // advance. The step's heartbeat is sent first, so the read runs beside it.
        this.#book.beatAhead();
        try {
          await this.#refreshServices();
        } catch (error) {
          this.#book.dropAhead();
          throw error;
        }
        const ran = await this.#book.step((due) => this.#run(due, concurrency));
        if (ran === undefined) break;
        steps += 1;
        invocations.push(...ran);
      }
      return { steps, invocations };
    });
  }

  /**
   * Steps in real time, one step per `tickMs` without drift, until `steps`, `signal` or all finish. Without
   * `tickMs` the SDL paces it as RAES's wall driver does: one tick per tick period ÷ pacing_ratio of a
   * `real_time` or `dilated` progression (`runtime.pacing-undeclared` for a `stepped` one). Then a step that
   * starts later than the progression's `drift_bound_ticks` (one tick when undeclared) marks the clock's
   * services `degraded` (docs/guide/operations.md#real-time).
   *
   * @example
   * const summary = await manager.run({ steps: 30 }); // real_time, tick period 1/100 s: 10 ms per step
   */
  run(options: PacedRunOptions & StepOptions = {}): Promise<PacedRunSummary> {
    let pacing: ReturnType<ServicePacing["pacing"]>;
    try {
      pacing = this.#pacing.pacing(options.tickMs);
    } catch (error) {
      return Promise.reject(error);
    }
    // A torn-down participant's schedules never run again: finished, as a completed one (RAES's teardown is final).
    const positions = () =>
      schedulePositions(this.#ctx.model, this.#book.describe()).map((p) =>
        this.#book.tornDown(p.participantAddress) ? { ...p, finished: true, nextDueTick: undefined } : p,
      );
    const awaitingShare = () => this.share().owned < this.share().target;
    const step = () => this.step(1, options).catch((e: unknown) => survivedLeaseLoss(e, this.#ctx.log));
    const pacingLost = async (latenessMs: number) => {
      const generations = new Map<string, number>();
      for (const policy of Object.values(this.#ctx.model.autonomousPolicies))
        if (!generations.has(policy.clockAddress))
          generations.set(
            policy.clockAddress,
            (await this.store.getClock(policy.clockAddress))?.generation ?? 1,
          );
      await this.#pacing.lost(
        this.store,
        latenessMs,
        (clock) => generations.get(clock) ?? 1,
        this.#ctx.now(),
      );
    };
    return runPaced(
      { step, positions, awaitingShare, pacingLost, timers: this.#ctx.timers },
      options,
      pacing,
    );
  }

  /** Pauses the shared clock: steps do nothing until `resume`. */
  pause(): Promise<void> {
    return this.#exclusive(() => this.#book.setPaused(true).then(() => pauseV2(this.#ctx, this.#book, true)));
  }

  /** Resumes the shared clock; actions due at its current tick that have not run yet run now. */
  resume(): Promise<void> {
    return this.#exclusive(async () => {
      await this.#book.setPaused(false);
      await pauseV2(this.#ctx, this.#book, false);
      await this.#run(await this.#dueNow());
    });
  }

  /**
   * Starts a new clock segment and episode at tick 0 and increments the execution generation, then
   * runs the attempts due at tick 0 of the new segment before it returns, as RAES's reset does (it
   * runs them before the clock next advances); on a paused clock they run at `resume`
   * (docs/guide/harness.md#what-open-and-reset-run).
   */
  reset(): Promise<void> {
    return this.#exclusive(async () => {
      const time = this.#services.manifest.time;
      if (time && !time.supportsCoordinatedParticipantReset)
        throw new RuntimeError(
          RuntimeErrorCode.coordinated_reset_unsupported,
          "Autonomous clock reset requires one atomic time and participant reset operation.",
        );
      if (time?.supportsCoordinatedParticipantReset) await this.#resetMany();
      await this.#book.reset();
      // Each participant's service follows the clock: next generation, a new episode in the new segment.
      await this.#run(await this.#dueNow());
    });
  }

  /** RAES's coordinated reset: the runtime's atomic reset of every live episode on the clocks being reset. */
  async #resetMany(): Promise<void> {
    const records = await this.store.listParticipantServices();
    const requests = records
      .filter((r) => r.episode !== null && r.episode.status !== "terminated")
      .map((r) => {
        const clock = this.#specOf(r.participantAddress)?.policy.clockAddress;
        const segment = (clock ? (this.#book.clock(clock)?.segment ?? 0) : 0) + 1;
        return {
          participant_address: r.participantAddress,
          episode_id: `${r.participantAddress}-autonomous-${segment}`,
          reason: `shared clock reset to segment ${segment}`,
        };
      });
    await this.#services.runtime.resetMany?.(requests);
  }

  /** Starts a stopped participant's execution service (RAES's `start`). */
  startParticipant(
    participantAddress: string,
    options: ParticipantControlOptions = {},
  ): Promise<ParticipantExecutionServiceState> {
    return this.#control(participantAddress, "start", options);
  }

  /** Pauses a running participant's execution service: it admits no new work until `resumeParticipant`. */
  pauseParticipant(
    participantAddress: string,
    options: ParticipantControlOptions = {},
  ): Promise<ParticipantExecutionServiceState> {
    return this.#control(participantAddress, "pause", options);
  }

  /** Drains a participant's execution service to quiescent: no new work, and none left open (bounded wait). */
  drainParticipant(
    participantAddress: string,
    options: ParticipantControlOptions = {},
  ): Promise<ParticipantExecutionServiceState> {
    return this.#control(participantAddress, "drain", options);
  }

  /**
   * Jumps a shared clock to `tick`, with RAES's semantics (ADR-090): only a clock that `supports_jump`
   * may jump, a jump would start a new segment, and RAES refuses every jump of a clock its autonomous
   * schedules run on, before anything changes: `runtime.backend-contract-invalid` (no `supports_jump`),
   * `runtime.participant-autonomous-cadence-skipped` (past a running schedule's next cadence tick), else
   * `runtime.participant-autonomous-readback-invalid`. Nothing is written and no harness is called.
   * `reset()` is how such a clock starts a new segment (docs/guide/operations.md#clock-jumps).
   */
  jumpClock(clockAddress: string, tick: number): Promise<never> {
    return this.#exclusive(async () => {
      const clock = await this.store.getClock(clockAddress);
      const states = Object.values(await this.schedulerStates());
      throw jumpRefusal(this.#ctx.model, clockAddress, tick, clock, states);
    });
  }

  /**
   * Resets a quiescent participant's execution service (RAES's `reset`): the next generation, its
   * schedules' attempts and counters cleared, running again.
   */
  resetParticipant(
    participantAddress: string,
    options: ParticipantControlOptions = {},
  ): Promise<ParticipantExecutionServiceState> {
    return this.#control(participantAddress, "reset", options);
  }

  /** Tears a quiescent participant's execution service down for good: it never runs again in this store. */
  teardownParticipant(
    participantAddress: string,
    options: ParticipantControlOptions = {},
  ): Promise<ParticipantExecutionServiceState> {
    return this.#control(participantAddress, "teardown", options);
  }

  /**
   * RAES's readback of one participant's execution service, from the store: `degraded`, with RAES's
   * `pacing_deviation_refs`, once any process lost pacing under its policy (it keeps running).
   */
  async participantExecutionState(participantAddress: string): Promise<ParticipantExecutionServiceState> {
    const record = await this.store.getParticipantService(participantAddress);
    if (!record)
      throw new ParticipantControlError(
        ParticipantControlCode.not_found,
        `participant '${participantAddress}' has no execution service in this store`,
      );
    return serviceReadback(
      record,
      await this.store.listPacingDeviations(participantAddress),
      this.#services.nowMs(),
    );
  }

  /** Every participant's execution service and episodes (current episode and history), from the store. */
  participantServices(): Promise<ParticipantServiceRecord[]> {
    return this.store.listParticipantServices();
  }

  /** Initializes a participant's first episode (RAES's `initialize_participant_episode`). */
  initializeParticipantEpisode(
    participantAddress: string,
    options: Omit<ParticipantEpisodeOptions, "reason"> = {},
  ): Promise<ParticipantEpisodeState> {
    return this.#episode({ participant: participantAddress, action: "initialize", ...options });
  }

  /** Replaces a participant's live episode with a new one (RAES's `reset_participant_episode`). */
  resetParticipantEpisode(
    participantAddress: string,
    options: ParticipantEpisodeOptions = {},
  ): Promise<ParticipantEpisodeState> {
    return this.#episode({ participant: participantAddress, action: "reset", ...options });
  }

  /** Follows a participant's terminated episode with a new one (RAES's `restart_participant_episode`). */
  restartParticipantEpisode(
    participantAddress: string,
    options: ParticipantEpisodeOptions = {},
  ): Promise<ParticipantEpisodeState> {
    return this.#episode({ participant: participantAddress, action: "restart", ...options });
  }

  /** Terminates a participant's live episode (RAES's `terminate_participant_episode`); it runs no work until restarted. */
  terminateParticipantEpisode(
    participantAddress: string,
    options: {
      readonly terminalReason?: EpisodeTerminalReason;
      readonly detail?: string;
      readonly operator?: string;
      readonly note?: string;
    } = {},
  ): Promise<ParticipantEpisodeState> {
    return this.#episode({ participant: participantAddress, action: "terminate", ...options });
  }

  #episode(request: EpisodeRequest): Promise<ParticipantEpisodeState> {
    return this.#exclusive(async () => {
      const outcome: EpisodeOutcome = await controlEpisode(this.store, request, {
        now: () => new Date(this.#services.nowMs()),
      });
      if (!outcome.ok) throw new ParticipantControlError(outcome.code, outcome.message);
      await this.#refreshServices();
      return outcome.episode;
    });
  }

  #control(
    participantAddress: string,
    action: ExecutionControlAction,
    options: ParticipantControlOptions,
  ): Promise<ParticipantExecutionServiceState> {
    return this.#exclusive(() => this.#applyControl(participantAddress, action, options));
  }

  async #applyControl(
    participantAddress: string,
    action: ExecutionControlAction,
    options: ParticipantControlOptions,
  ): Promise<ParticipantExecutionServiceState> {
    const outcome: ControlOutcome = await controlParticipant(
      this.store,
      { participant: participantAddress, action, ...options },
      { now: () => new Date(this.#services.nowMs()) },
    );
    if (!outcome.ok) throw new ParticipantControlError(outcome.code, outcome.message);
    // As RAES's resume: work due at the clock's current tick that has not run yet runs now.
    if (action === "start" || action === "resume" || action === "reset")
      await this.#run(await this.#dueNow());
    else await this.#refreshServices();
    return outcome.service;
  }

  /** The work due now, after reading the participants' execution services. */
  async #dueNow() {
    await this.#refreshServices();
    return this.#book.dueNow();
  }

  /** Reads the services; a store that cannot answer is the ledger's unavailability, as in an invocation's writes. */
  async #refreshServices(): Promise<void> {
    try {
      await refreshServices(this.store, this.#book, this.#services.specs, this.#ctx.now());
    } catch (error) {
      throw asLedgerError(error);
    }
  }

  #specOf(participantAddress: string): ScheduleSpec | undefined {
    return this.#services.specs.find((s) => s.participantAddress === participantAddress);
  }

  /**
   * Resumes a participant: a paused execution service (RAES's `resume`, fenced by `expectedGeneration`),
   * then a stopped scheduler, which is refused while indeterminate actions are unresolved. Each is recorded as an operator decision by `options.operator` (else `RAES_OPERATOR`, else
   * `USER@HOST`; docs/guide/operations.md).
   */
  resumeParticipant(
    participantAddress: string,
    options: ParticipantControlOptions = {},
  ): Promise<ParticipantExecutionServiceState | undefined> {
    const operator = operatorIdentity(options.operator);
    const note = decisionNote(options.note);
    return this.#exclusive(async () => {
      const record = await this.store.getParticipantService(participantAddress);
      // A paused execution service resumes under RAES's fence; a stopped scheduler restarts as before.
      const paused = record?.service.observed_lifecycle === "paused";
      const service =
        paused || options.expectedGeneration !== undefined
          ? await this.#applyControl(participantAddress, "resume", { ...options, operator, note })
          : record?.service;
      // A manager that does not own the participant (another process runs it) resumes only its service.
      if (!paused || this.#book.ownedParticipants().has(participantAddress))
        await this.#book.resumeParticipant(participantAddress, { operator, note });
      return service;
    });
  }

  /** The scheduler or tool-action operation with this id. */
  getOperation(id: string): Promise<Operation | undefined> {
    return this.store.getOperation(id);
  }

  /**
   * RAES's participant status view: the current episode and its state, the participant's open operations
   * (`open_operation_refs`) and, raes-ts's own, each execution service's health (`degraded` once pacing
   * was lost). Undefined for a participant the store has no schedule of (docs/guide/history.md#views).
   *
   * @example
   * const status = await manager.getParticipantStatusView("participant.behavior.participant-agent");
   * // status?.open_operation_refs: ids of its running invocations and open tool actions
   */
  getParticipantStatusView(participantAddress: string): Promise<ParticipantStatusView | undefined> {
    return participantStatusView(this.#viewSource(), participantAddress);
  }

  /**
   * RAES's participant history view of one episode (`episode_history`, `behavior_history`, complete);
   * undefined when the participant has no such episode.
   *
   * @example
   * const view = await manager.getParticipantHistoryView(participant, `${participant}-autonomous-0`);
   */
  getParticipantHistoryView(
    participantAddress: string,
    episodeId: string,
  ): Promise<ParticipantHistoryView | undefined> {
    return participantHistoryView(this.#viewSource(), participantAddress, episodeId);
  }

  /** RAES's participant context view: the derived view `options.viewRef` declares; undefined for an unknown participant or episode. */
  getParticipantContextView(
    participantAddress: string,
    options: ContextViewOptions,
  ): Promise<ParticipantContextView | undefined> {
    return participantContextView(this.#viewSource(), participantAddress, options);
  }

  /**
   * RAES's scheduler states of the schedules this manager owns, under RAES's names and keys
   * (`<policy>.state.<participant>`: `next_tick`, `attempted_actions`, `succeeded_actions`, ...), v1 and v2.
   */
  schedulerStates(): Promise<Record<string, AutonomousExecutionState>> {
    return autonomousExecutionStates(this.#viewSource(), this.#book.describe());
  }

  #viewSource(): ViewSource {
    return {
      store: this.store,
      model: this.#ctx.model,
      now: this.#ctx.now,
    };
  }

  /** Wire history events in commit order. */
  history(query: { readonly participant?: string; readonly episode?: string } = {}): Promise<HistoryEvent[]> {
    return this.store.listEvents({
      ...(query.participant === undefined ? {} : { participantAddress: query.participant }),
      ...(query.episode === undefined ? {} : { episodeId: query.episode }),
    });
  }

  /** Wire history events, for `getParticipantHistoryView`. */
  listEvents(query: { participantAddress?: string; episodeId?: string }): Promise<HistoryEvent[]> {
    return this.store.listEvents(query);
  }

  /** How many participants this process owns, of how many, among how many live processes (as of its last step). */
  share = (): ParticipantShare => this.#book.share();

  /**
   * Every v3 budget event of the schedules this manager owns (DESIGN §15): `reserve`, `commit`,
   * `release` and `throttle`, one per budget (a throttle names the budget without room), in tick order.
   * An array at once (awaiting it gives the same array), held in process: what the store kept of a
   * schedule is loaded when the manager takes it, and each commit adds its own. The store-wide view,
   * a page at a time without holding it, is `manager.store.listBudgetEvents` (docs/guide/operations.md#budget-events).
   *
   * @example
   * const throttles = manager.resourceBudgetEvents().filter((e) => e.transition === "throttle");
   */
  resourceBudgetEvents(): ResourceBudgetEvent[] {
    return this.#budgetEvents.events(this.#book.describe());
  }

  /** Every v3 budget's state (RAES's fields, plus the current window of windowed budgets), by policy. */
  resourceBudgets(): ResourceBudgetStateView[] {
    return resourceViews(this.#book, this.#v2, this.#v3).budgets;
  }

  /** Every physical pool the v3 budgets draw on, with its use across policies. */
  resourcePools(): ResourcePoolStateView[] {
    return resourceViews(this.#book, this.#v2, this.#v3).pools;
  }

  /** The participants this manager owns, with their scheduler lifecycle. */
  schedulers(): ReturnType<ScheduleBook["describe"]> {
    return this.#book.describe();
  }

  /** Releases leases and closes a store the manager opened. */
  close(): Promise<void> {
    return this.#exclusive(async () => {
      if (this.#closed) return;
      this.#closed = true;
      await this.#book.releaseLeases();
      if (this.#ownsStore) await this.store.close();
    });
  }

  /**
   * Runs every participant's due work, at most `concurrency` participants at once, started in due
   * order; settles all of it before failing, so no invocation outlives the call.
   */
  async #run(due: readonly DueWork[], concurrency = this.#concurrency): Promise<InvocationSummary[]> {
    const v1 = due.filter((d) => !isV2Work(this.#v2, d));
    const results = await settleBounded(v1, concurrency, (d) =>
      runDueTicks(this.#dueRunner(), d.participantAddress, d.policyAddress, d.ticks),
    );
    const invocations: InvocationSummary[] = [];
    for (const r of results) if (r.status === "fulfilled") invocations.push(...r.value);
    const failures = results.flatMap((r, index) =>
      r.status === "rejected" ? [{ participant: v1[index]?.participantAddress ?? "?", error: r.reason }] : [],
    );
    const [only] = failures;
    if (failures.length > 1) throw new ParticipantsFailedError(failures);
    if (only) throw only.error;
    // v2 participants run serially in RAES's order, each finishing its due attempts first.
    invocations.push(...(await runV2Work(this.#dueRunner(), this.#v2, due, this.#v3)));
    return invocations;
  }

  #dueRunner(): DueRunner {
    const closed = (s: InvocationSummary) => this.#observer?.invocationClosed?.(s);
    return { ctx: this.#ctx, book: this.#book, refresh: () => this.#refreshServices(), closed };
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.#closed)
      return Promise.reject(new RuntimeError(RuntimeErrorCode.manager_closed, "the manager is closed"));
    const next = this.#serial.then(work, work);
    this.#serial = next.catch(() => undefined);
    return next;
  }
}
