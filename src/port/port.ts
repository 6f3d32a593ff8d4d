import type { ApprovalExpiry, ApprovalRecord, ApprovalState, ToolActionRecord } from "../records/index.js";
import {
  approvalWithheldReason,
  textDigest,
  toolActionAt,
  UnknownReason,
  unansweredClaimFields,
} from "../records/index.js";
import type { ParticipantAdmissionRules, ToolActionLimits } from "./admission.js";
import { type AdmitDispatchAnswer, registerAdmitDispatch } from "./admit-dispatch.js";
import { type ApprovalAnswer, type ApprovalWait, parseApprovalWait, registerApproval } from "./approval.js";
import { registerClosing } from "./closing.js";
import { ParticipantToolActionRefusal as Refusal, ToolActionPhase } from "./codes.js";
import { parseRefusalNote, registerRefusalNote } from "./refusal-note.js";
import { type SettlementEvent, transition } from "./settlement.js";
import {
  isBoundedId,
  outcomeFields,
  parseToolActionOutcome,
  parseToolActionRequest,
  requestCanonicalJson,
} from "./shapes.js";
import type {
  AdmitDecision,
  DispatchReceipt,
  InvocationToolActionPort,
  ParticipantToolActionOutcome,
  PortAck,
  PortCall,
  ToolActionObserver,
  ToolActionPortIdentity,
} from "./types.js";
import { parseWithheldReason, registerWithhold } from "./withhold.js";

/** What `settleForClose` gives: every tool action of the invocation, and those its close must write. */
export interface SettledAtClose {
  /** Every action, in admission order, as it stands after the close. */
  readonly settled: readonly ToolActionRecord[];
  /** The actions the close settled: those not stored as they now stand. */
  readonly changed: readonly ToolActionRecord[];
}

/** Durable writes the port needs; each resolves only after the change is committed. */
export interface ToolActionLedger {
  insert(record: ToolActionRecord): Promise<void>;
  update(record: ToolActionRecord, expectedPhase: ToolActionPhase): Promise<boolean>;
  /**
   * Sets an admitted action's approval when the stored one is in state `expected` (undefined: none):
   * the store's compare-and-set (docs/guide/approvals.md). With `read`, the port can hold calls.
   */
  recordApproval?(
    id: string,
    approval: ApprovalRecord,
    expected: ApprovalState | undefined,
  ): Promise<boolean>;
  /** The stored record, read while a call is held, to see a decision another process wrote. */
  read?(id: string): Promise<ToolActionRecord | undefined>;
}

/** A durable write of the port that failed; the port answered `ledger_unavailable`. */
export interface LedgerWriteFailure {
  readonly write: "insert" | "update";
  readonly actionInstanceId: string;
  /** The phase the write would have recorded. */
  readonly phase: ToolActionPhase;
  /** What the ledger threw; absent when an update found the stored record out of the expected phase. */
  readonly error?: unknown;
}

/** What a port is built from: its identity, the precomputed rules, limits, the ledger and a clock. */
export interface ToolActionPortOptions {
  readonly identity: ToolActionPortIdentity;
  readonly rules: ParticipantAdmissionRules;
  readonly limits: ToolActionLimits;
  readonly ledger: ToolActionLedger;
  /** Evidence refs an outcome may cite, by observation boundary address. */
  readonly outcomeEvidence: (boundaryAddress: string) => ReadonlySet<string> | undefined;
  /** Failure classes an action contract declares; empty means any. */
  readonly failureClasses: (actionContractAddress: string) => ReadonlySet<string> | undefined;
  /** ISO-8601 wall time for record timestamps. */
  readonly now: () => string;
  /** Told of every refusal, for progress counters; it observes and never steers. */
  readonly onRefusal?: (refusal: Refusal) => void;
  readonly observer?: ToolActionObserver;
  /** Told why each failed durable write failed, once, as the answer itself keeps only the code. */
  readonly onLedgerFailure?: (failure: LedgerWriteFailure) => void;
  /** How often a held call reads the store for its decision; default 200 ms. */
  readonly approvalPollMs?: number;
}

const APPROVAL_POLL_MS = 200;

type PortStatus = "inactive" | "open" | "closed";

/** The tool a request names, for a refusal's details: its MCP tool name, else its affordance (bounded). */
function toolNamed(request: unknown): string | undefined {
  if (typeof request !== "object" || request === null) return undefined;
  const { toolName, toolAffordanceAddress } = request as Record<string, unknown>;
  const name = typeof toolName === "string" ? toolName : toolAffordanceAddress;
  return typeof name === "string" && name.length > 0 ? name.slice(0, 256) : undefined;
}
type Refused = { readonly admitted: false; readonly refusal: Refusal };

const refusedAdmit = (refusal: Refusal): Refused => ({ admitted: false, refusal });
const refusedReceipt = (refusal: Refusal): DispatchReceipt => ({ accepted: false, refusal });
const refusedAck = (refusal: Refusal): PortAck => ({ ok: false, refusal });
const OK: PortAck = Object.freeze({ ok: true });
const ACCEPTED: DispatchReceipt = Object.freeze({ accepted: true });

/**
 * How long the close waits before each new read of a claim whose answer was lost, after the first
 * read failed: a store that answers again within about half a second lets the close go on.
 */
const CLOSE_READ_BACKOFF_MS = [20, 100, 400] as const;

/**
 * The close could not learn whether a claim whose answer was lost is stored: nothing of the close was
 * written, and the invocation is left running for recovery to settle. `cause` is the last read's failure.
 */
export class UnheardClaimUnreadableError extends Error {
  /** The claim's action instance id. */
  readonly actionInstanceId: string;
  constructor(actionInstanceId: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `the store could not say whether the claim ${actionInstanceId} (its answer was lost) is stored (${why}): the invocation is not closed, and recovery settles it as interrupted`,
      { cause },
    );
    this.name = "UnheardClaimUnreadableError";
    this.actionInstanceId = actionInstanceId;
  }
}

/**
 * One invocation's tool-action port. The manager drives its lifecycle; the harness only sees
 * `port`, which never reaches back into the manager.
 */
export class InvocationToolActionPortCore {
  readonly port: InvocationToolActionPort;
  readonly #options: ToolActionPortOptions;
  #status: PortStatus = "inactive";
  /** Aborted by the close, so a caller waiting on a tool stops waiting (`closedSignal`). */
  readonly #closed = new AbortController();
  #queue: Promise<unknown> = Promise.resolve();
  readonly #decisions = new Map<string, { readonly digest: string; readonly decision: AdmitDecision }>();
  /**
   * The last claim whose write the port heard fail: the store may hold it all the same (the answer
   * was lost after the commit). It is read back before the next claim, so its ordinal is never
   * claimed twice, and at the close, so a stored one is settled with the rest.
   */
  #unheardClaim: ToolActionRecord | undefined;
  /** Why the last read-back of the unheard claim failed, for the close that cannot go on without it. */
  #unheardReadFailure: unknown;
  /** Claims read back after their answer was lost: settled as not run, now or at the close. */
  readonly #unanswered = new Set<string>();
  readonly #actions = new Map<string, ToolActionRecord>();
  /** Actions whose last write the port heard fail: the store may hold it all the same. */
  readonly #inDoubt = new Set<string>();
  #unsettled = 0;

  constructor(options: ToolActionPortOptions) {
    this.#options = options;
    const { onRefusal: report, observer } = options;
    const observe = <T extends object>(
      answer: Promise<T>,
      call: PortCall,
      id?: unknown,
      request?: unknown,
    ): Promise<T> =>
      answer.then((a) => {
        if (!("refusal" in a)) return a;
        report?.(a.refusal as Refusal);
        const known = typeof id === "string" && this.#actions.has(id) ? id : undefined;
        const tool = toolNamed(known ? this.#actions.get(known)?.request : request);
        observer?.refused(a.refusal as Refusal, call, known, tool);
        return a;
      });
    this.port = Object.freeze({
      ...options.identity,
      admit: (request: unknown) =>
        observe(this.#admit(request, false) as Promise<AdmitDecision>, "admit", undefined, request),
      dispatch: (id: unknown) => observe(this.#dispatch(id), "dispatch", id),
      complete: (id: unknown, outcome: unknown) => observe(this.#complete(id, outcome), "complete", id),
      reportUnknown: (id: unknown, reason: unknown) =>
        observe(this.#reportUnknown(id, reason), "reportUnknown", id),
      cancel: (id: unknown) => observe(this.#cancel(id), "cancel", id),
    }) as InvocationToolActionPort;
    // A cancel that says why; a malformed reason is refused as a malformed cancel would be.
    registerWithhold(this.port, (id, reason) => {
      const why = parseWithheldReason(reason);
      const answer = why ? this.#cancel(id, why) : Promise.resolve(refusedAck(Refusal.request_invalid));
      return observe(answer, "cancel", id);
    });
    // Held calls need the store's compare-and-set and a read of what another process decided.
    if (options.ledger.recordApproval && options.ledger.read)
      registerApproval(this.port, (id, wait) => this.#awaitApproval(id, wait));
    registerClosing(this.port, this.#closed.signal);
    // Counted only while the invocation runs: a note after its close is not of it.
    registerRefusalNote(this.port, async (value) => {
      const note = parseRefusalNote(value);
      if (note && this.#status === "open") observer?.noted?.(note);
    });
    // Refusals of the combined step are admission refusals: nothing was dispatched.
    registerAdmitDispatch(this.port, async (request) => {
      const answer = await this.#admit(request, true);
      if ("decision" in answer) return answer;
      return { decision: await observe(Promise.resolve(answer), "admit", undefined, request) };
    });
  }

  /** Opens the port: `admitAction` is about to be called. */
  open(): void {
    if (this.#status === "inactive") this.#status = "open";
  }

  /**
   * Closes the port at once; later calls answer `invocation_closed`, and `closedSignal(port)` aborts,
   * so a caller still waiting on a tool answers its own caller now rather than at its tool timeout.
   */
  close(): void {
    this.#status = "closed";
    if (!this.#closed.signal.aborted) this.#closed.abort();
  }

  /**
   * After close: waits for calls already accepted, then settles the rest by the close rules. Every
   * action, in admission order; `changed` holds those the close settled, the only ones the close must
   * write: the others are stored as they are. An action whose last write the port heard fail is read
   * back first: a settlement that committed all the same (its answer lost) is what the close keeps,
   * with any resolution an operator recorded since, so the row and the history agree.
   */
  async settleForClose(): Promise<SettledAtClose> {
    this.close();
    return this.#serial(async () => {
      const settled: ToolActionRecord[] = [];
      const changed: ToolActionRecord[] = [];
      // A held call is decided before it settles: expired, unless an operator decided first.
      for (const record of [...this.#actions.values()])
        if (record.approval?.state === "pending") await this.#endApproval(record.id, "invocation_closed");
      // A claim whose answer was lost may be stored. Closed without it, its row would stay admitted
      // under a closed invocation, where no recovery looks (recovery reads running invocations). So
      // the close waits for the store's answer; unread, it throws, the invocation stays running, and
      // recovery settles the claim with the rest (docs/guide/troubleshooting.md).
      for (let attempt = 0; !(await this.#resolveUnheardClaim()); attempt += 1) {
        const wait = CLOSE_READ_BACKOFF_MS[attempt];
        if (wait === undefined)
          throw new UnheardClaimUnreadableError(this.#unheardClaim?.id ?? "", this.#unheardReadFailure);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      for (const id of this.#inDoubt) await this.#readBack(id);
      for (const record of this.#actions.values()) {
        // An unanswered claim whose settlement could not be written: settled as not run all the same.
        const unanswered = this.#unanswered.has(record.id);
        const result =
          unanswered && record.phase === ToolActionPhase.dispatched
            ? transition(record, { type: "complete", status: "failed" })
            : transition(record, { type: "close" });
        if (!result.ok || result.state === record) {
          settled.push(record);
          continue;
        }
        const moved = notRunFields(toolActionAt(record, result.state, this.#options.now()), unanswered);
        const why = moved.settlement === "withheld" ? approvalWithheldReason(record.approval) : undefined;
        const at =
          why === undefined || moved.withheldReason !== undefined ? moved : { ...moved, withheldReason: why };
        // Dispatched with no outcome and no reportUnknown: the record says why its effects are unknown.
        const closed =
          at.settlement === "indeterminate" && at.unknownReason === undefined
            ? { ...at, unknownReason: UnknownReason.invocation_returned_without_outcome }
            : at;
        settled.push(closed);
        changed.push(closed);
        this.#options.observer?.settled(closed);
      }
      return { settled, changed };
    });
  }

  #gate(): Refusal | undefined {
    if (this.#status === "inactive") return Refusal.invocation_inactive;
    if (this.#status === "closed") return Refusal.invocation_closed;
    return undefined;
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Rules 0 to 10. With `dispatch`, a fresh admission is recorded already dispatched, in the same
   * single durable write, and answered with its receipt; a refusal is returned bare, and a repeated
   * `tool_call_id` gets its original decision and no receipt (nothing is dispatched again).
   */
  async #admit(raw: unknown, dispatch: boolean): Promise<AdmitDecision | AdmitDispatchAnswer> {
    const request = parseToolActionRequest(raw);
    if (!request) return refusedAdmit(Refusal.request_invalid);
    const gate = this.#gate();
    if (gate) return refusedAdmit(gate);
    return this.#serial(async () => {
      if (!(await this.#resolveUnheardClaim())) return refusedAdmit(Refusal.ledger_unavailable);
      const digest = textDigest(requestCanonicalJson(request));
      const prior = this.#decisions.get(request.toolCallId);
      if (prior) {
        if (prior.digest !== digest) return refusedAdmit(Refusal.request_conflict);
        return dispatch ? { decision: prior.decision } : prior.decision;
      }
      const { identity, rules, limits } = this.#options;
      const refusal = rules.check(identity, request);
      if (refusal) return refusedAdmit(refusal);
      if (this.#actions.size >= limits.maxToolActionsPerInvocation) {
        return refusedAdmit(Refusal.action_limit_exhausted);
      }
      if (this.#unsettled >= limits.maxConcurrentToolActionsPerInvocation) {
        return refusedAdmit(Refusal.concurrency_limit_exhausted);
      }
      const ordinal = this.#actions.size + 1;
      const id = `${identity.invocationActionInstanceId}:tool=${ordinal}`;
      const at = this.#options.now();
      const admitted: ToolActionRecord = {
        id,
        invocationId: identity.invocationActionInstanceId,
        participantAddress: identity.participantAddress,
        toolCallId: request.toolCallId,
        admissionOrdinal: ordinal,
        requestDigest: digest,
        request,
        phase: ToolActionPhase.admitted,
        admittedAt: at,
        createdAt: at,
        updatedAt: at,
      };
      // Admitted then dispatched, as one record: the claim and the dispatch commit together or not at all.
      const record = dispatch ? toolActionAt(admitted, { phase: ToolActionPhase.dispatched }, at) : admitted;
      try {
        await this.#options.ledger.insert(record);
      } catch (error) {
        this.#unheardClaim = record;
        this.#options.onLedgerFailure?.({
          write: "insert",
          actionInstanceId: id,
          phase: record.phase,
          error,
        });
        return refusedAdmit(Refusal.ledger_unavailable);
      }
      this.#actions.set(id, record);
      this.#unsettled += 1;
      this.#options.observer?.admitted(admitted);
      if (dispatch) this.#options.observer?.dispatched(record);
      const decision: AdmitDecision = Object.freeze({ admitted: true, actionInstanceId: id });
      this.#decisions.set(request.toolCallId, { digest, decision });
      return dispatch ? { decision, receipt: ACCEPTED } : decision;
    });
  }

  /**
   * Reads back the claim whose write the port heard fail. Not stored, its ordinal is free again.
   * Stored, it is the invocation's action, under the call and digest the store holds, and is settled
   * at once as not run, since its caller heard a refusal and so never ran the tool: `withheld`
   * (`claim_unanswered`) if only admitted, `failed` if recorded dispatched with it (a one-step claim).
   * A retry of its call gets its decision, and no dispatch. False while the store cannot answer: no
   * claim is made until it can.
   */
  async #resolveUnheardClaim(): Promise<boolean> {
    const unheard = this.#unheardClaim;
    const read = this.#options.ledger.read;
    if (unheard === undefined) return true;
    if (read === undefined) {
      this.#unheardClaim = undefined;
      return true;
    }
    let stored: ToolActionRecord | undefined;
    try {
      stored = await read(unheard.id);
    } catch (error) {
      this.#unheardReadFailure = error;
      return false;
    }
    this.#unheardClaim = undefined;
    if (stored === undefined) return true;
    this.#actions.set(stored.id, stored);
    if (stored.phase !== ToolActionPhase.settled) this.#unsettled += 1;
    const decision: AdmitDecision = Object.freeze({ admitted: true, actionInstanceId: stored.id });
    this.#decisions.set(stored.toolCallId, { digest: stored.requestDigest, decision });
    this.#options.observer?.admitted(stored);
    this.#unanswered.add(stored.id);
    if (stored.phase === ToolActionPhase.admitted) {
      await this.#apply(stored.id, { type: "cancel" }, notRunFields({}, true, "withheld"));
    } else if (stored.phase === ToolActionPhase.dispatched) {
      this.#options.observer?.dispatched(stored);
      // Unrecorded, it stays dispatched, and the close settles it `failed` all the same.
      await this.#apply(stored.id, { type: "complete", status: "failed" }, notRunFields({}, true, "failed"));
    }
    return true;
  }

  /**
   * A claim whose caller heard a refusal is settled as not run, and never runs: its retry is neither
   * dispatched, held for approval, completed nor reported unknown, not even while its settlement
   * could not be written yet (the close writes it).
   */
  #neverRuns(id: unknown): boolean {
    return typeof id === "string" && this.#unanswered.has(id);
  }

  async #dispatch(id: unknown): Promise<DispatchReceipt> {
    const gate = this.#gate();
    if (gate) return refusedReceipt(gate);
    return this.#serial(async () => {
      // A held call runs only once approved (docs/guide/approvals.md).
      const held = typeof id === "string" ? this.#actions.get(id)?.approval : undefined;
      if (held && held.state !== "approved") return refusedReceipt(Refusal.state_conflict);
      if (this.#neverRuns(id)) return refusedReceipt(Refusal.state_conflict);
      const refusal = await this.#apply(id, { type: "dispatch" });
      return refusal ? refusedReceipt(refusal) : ACCEPTED;
    });
  }

  async #complete(id: unknown, raw: unknown): Promise<PortAck> {
    const gate = this.#gate();
    if (gate) return refusedAck(gate);
    return this.#serial(async () => {
      const outcome = parseToolActionOutcome(raw);
      const record = typeof id === "string" ? this.#actions.get(id) : undefined;
      if (!record) return refusedAck(Refusal.unknown_action);
      if (this.#neverRuns(id)) return refusedAck(Refusal.state_conflict);
      const probe = transition(record, { type: "complete", status: outcome?.status ?? "succeeded" });
      if (!probe.ok) return refusedAck(probe.refusal);
      if (!outcome || !outcomeFits(this.#options, record, outcome))
        return refusedAck(Refusal.outcome_invalid);
      const refusal = await this.#apply(
        id,
        { type: "complete", status: outcome.status },
        outcomeFields(outcome),
      );
      return refusal ? refusedAck(refusal) : OK;
    });
  }

  async #reportUnknown(id: unknown, reason: unknown): Promise<PortAck> {
    const gate = this.#gate();
    if (gate) return refusedAck(gate);
    return this.#serial(async () => {
      if (!isBoundedId(reason)) return refusedAck(Refusal.request_invalid);
      if (this.#neverRuns(id)) return refusedAck(Refusal.state_conflict);
      const refusal = await this.#apply(id, { type: "report_unknown" }, { unknownReason: reason });
      return refusal ? refusedAck(refusal) : OK;
    });
  }

  async #cancel(id: unknown, withheldReason?: string): Promise<PortAck> {
    const gate = this.#gate();
    if (gate) return refusedAck(gate);
    return this.#serial(async () => {
      // Cancelling a held call ends its approval first, so no operator can approve it after.
      if (typeof id === "string" && this.#actions.get(id)?.approval?.state === "pending")
        await this.#endApproval(id, "call_cancelled");
      const extra = withheldReason === undefined ? {} : { withheldReason };
      const refusal = await this.#apply(id, { type: "cancel" }, extra);
      return refusal ? refusedAck(refusal) : OK;
    });
  }

  /**
   * Holds an admitted action until its approval is decided (`awaitApproval`, docs/guide/approvals.md).
   * The hold is one durable compare-and-set; then the store is read every `approvalPollMs` for a
   * decision any process wrote, until the timeout, the caller's signal or the port's close expires it.
   */
  async #awaitApproval(id: unknown, raw: unknown): Promise<ApprovalAnswer> {
    const wait = parseApprovalWait(raw);
    if (!wait || typeof id !== "string") return { ok: false, refusal: Refusal.request_invalid };
    const signal = (raw as ApprovalWait).signal;
    const gate = this.#gate();
    if (gate) return { ok: false, refusal: gate };
    const ledger = this.#options.ledger;
    const held = await this.#serial(async (): Promise<Refusal | ApprovalRecord> => {
      const record = this.#actions.get(id);
      if (!record) return Refusal.unknown_action;
      if (record.phase !== ToolActionPhase.admitted || record.approval || this.#neverRuns(id))
        return Refusal.state_conflict;
      const at = this.#options.now();
      const approval: ApprovalRecord = {
        state: "pending",
        requestedAt: at,
        timeoutSeconds: wait.timeoutSeconds,
      };
      try {
        if (!(await ledger.recordApproval?.(id, approval, undefined))) return Refusal.ledger_unavailable;
      } catch {
        return Refusal.ledger_unavailable;
      }
      this.#actions.set(id, { ...record, approval, updatedAt: at });
      return approval;
    });
    if (typeof held === "string") return { ok: false, refusal: held };
    const deadline = Date.parse(held.requestedAt) + wait.timeoutSeconds * 1000;
    const pollMs = this.#options.approvalPollMs ?? APPROVAL_POLL_MS;
    for (;;) {
      const mine = this.#actions.get(id)?.approval;
      if (mine && mine.state !== "pending") return { ok: true, decision: mine.state };
      const stored = await ledger.read?.(id).catch(() => undefined);
      const decided = stored?.approval;
      if (decided && decided.state !== "pending") {
        await this.#serial(async () => {
          const record = this.#actions.get(id);
          if (record?.approval?.state === "pending") this.#actions.set(id, { ...record, approval: decided });
        });
        continue;
      }
      const expiredBy: ApprovalExpiry | undefined =
        this.#status === "closed"
          ? "invocation_closed"
          : signal?.aborted
            ? "call_cancelled"
            : Date.parse(this.#options.now()) >= deadline
              ? "timeout"
              : undefined;
      if (expiredBy) {
        await this.#serial(() => this.#endApproval(id, expiredBy));
        continue;
      }
      await pause(pollMs, signal);
    }
  }

  /**
   * Expires a pending approval (inside `#serial`), unless the store says someone decided first: that
   * decision is kept. A store that cannot be written leaves the expiry in memory; the settlement
   * that follows writes it.
   */
  async #endApproval(id: string, expiredBy: ApprovalExpiry): Promise<void> {
    const record = this.#actions.get(id);
    const pending = record?.approval;
    if (!record || pending?.state !== "pending") return;
    const ledger = this.#options.ledger;
    const expired: ApprovalRecord = {
      ...pending,
      state: "expired",
      decidedAt: this.#options.now(),
      expiredBy,
    };
    let approval = expired;
    const written = await Promise.resolve(ledger.recordApproval?.(id, expired, "pending")).catch(() => false);
    if (!written) {
      const stored = await ledger.read?.(id).catch(() => undefined);
      if (stored?.approval && stored.approval.state !== "pending") approval = stored.approval;
    }
    this.#actions.set(id, { ...record, approval });
  }

  /**
   * Takes the stored record of an action whose write the port heard fail, when the store holds it
   * settled: that write committed, or another settled it. Unreadable, the port keeps its own view.
   */
  async #readBack(id: string): Promise<void> {
    const record = this.#actions.get(id);
    if (!record || record.phase === ToolActionPhase.settled) return;
    const stored = await this.#options.ledger.read?.(id).catch(() => undefined);
    if (stored?.phase === ToolActionPhase.settled) this.#actions.set(id, stored);
  }

  /** Applies one event durably: the in-memory record changes only after the store commits it. */
  async #apply(
    id: unknown,
    event: SettlementEvent,
    extra: Partial<ToolActionRecord> = {},
  ): Promise<Refusal | undefined> {
    const record = typeof id === "string" ? this.#actions.get(id) : undefined;
    if (!record) return Refusal.unknown_action;
    const result = transition(record, event);
    if (!result.ok) return result.refusal;
    const moved = toolActionAt(record, result.state, this.#options.now());
    const next: ToolActionRecord = result.state.settlement === undefined ? moved : { ...moved, ...extra };
    const failed = { write: "update", actionInstanceId: record.id, phase: next.phase } as const;
    try {
      if (!(await this.#options.ledger.update(next, record.phase))) {
        this.#inDoubt.add(record.id);
        this.#options.onLedgerFailure?.(failed);
        return Refusal.ledger_unavailable;
      }
    } catch (error) {
      this.#inDoubt.add(record.id);
      this.#options.onLedgerFailure?.({ ...failed, error });
      return Refusal.ledger_unavailable;
    }
    this.#actions.set(record.id, next);
    const observer = this.#options.observer;
    if (next.phase === ToolActionPhase.dispatched) observer?.dispatched(next);
    if (next.phase === ToolActionPhase.settled) this.#unsettled -= 1;
    if (next.phase === ToolActionPhase.settled) observer?.settled(next);
    return undefined;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Whether an outcome may be recorded for `record` (docs/design.md §5): its participant, episode, action
 * instance, contract and observation point match, its evidence refs are declared evidence of the
 * boundary, and its failure class is one the contract declares (any, when it declares none).
 */
export function outcomeFits(
  options: Pick<ToolActionPortOptions, "identity" | "outcomeEvidence" | "failureClasses">,
  record: ToolActionRecord,
  outcome: ParticipantToolActionOutcome,
): boolean {
  const { identity } = options;
  if (
    outcome.participantAddress !== identity.participantAddress ||
    outcome.episodeId !== identity.episodeId ||
    outcome.actionInstanceId !== record.id ||
    outcome.actionContractAddress !== record.request.actionContractAddress ||
    outcome.observationPoint !== identity.observationPoint
  ) {
    return false;
  }
  const allowed = options.outcomeEvidence(record.request.observationBoundaryAddress);
  if (outcome.evidenceRefs?.some((ref) => !allowed?.has(ref))) return false;
  const classes = options.failureClasses(record.request.actionContractAddress);
  if (
    outcome.failureClass !== undefined &&
    classes &&
    classes.size > 0 &&
    !classes.has(outcome.failureClass)
  ) {
    return false;
  }
  return true;
}

/**
 * The fields that say an unanswered claim was settled as not run (docs/guide/troubleshooting.md):
 * `withheld_reason` on a withheld one, `failure_class` on a failed one (recorded dispatched); a
 * record that is not an unanswered claim's is returned as it is.
 */
function notRunFields<T extends Partial<ToolActionRecord>>(
  record: T,
  unanswered: boolean,
  settlement: string | undefined = record.settlement,
): T {
  return unanswered ? { ...record, ...unansweredClaimFields(settlement) } : record;
}
