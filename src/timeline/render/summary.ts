import { isoTime } from "../../printed/index.js";
import {
  actionTimes,
  needsResolution,
  type PacingDeviation,
  type ParticipantDecision,
  type PendingApproval,
  SETTLEMENTS,
  type SpanEnd,
  settlementOf,
  type TimelineEvent,
  type TimelineInvocation,
  type TimelineScheduler,
  type TimelineService,
} from "../model/index.js";
import type { DetailSpec } from "./details.js";
import { invocationStatus, refusalRows } from "./details.js";
import type { PanelStore } from "./panel-store.js";
import { type RawRow, rawRow } from "./rows.js";

/** The earliest and latest times seen so far, the first of equal ones kept. */
export interface SpanFold {
  start?: SpanEnd;
  end?: SpanEnd;
}

function see(fold: SpanFold, iso: string | undefined): void {
  const ms = isoTime(iso);
  if (iso === undefined || ms === undefined) return;
  if (!fold.start || ms < fold.start.ms) fold.start = { iso, ms };
  if (!fold.end || ms > fold.end.ms) fold.end = { iso, ms };
}

function merge(into: SpanFold, from: SpanFold): void {
  if (from.start && (!into.start || from.start.ms < into.start.ms)) into.start = from.start;
  if (from.end && (!into.end || from.end.ms > into.end.ms)) into.end = from.end;
}

function add(counts: Map<string, number>, key: string, n = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

/**
 * What the page keeps of one participant once its invocations are drawn: counts, its indeterminate
 * tool actions and its rows, not its events (docs/hardening.md).
 */
export interface ParticipantSummary {
  readonly address: string;
  /** Its place in the order its history began (which panel store list holds its panels). */
  readonly index: number;
  readonly schedulers: TimelineScheduler[];
  readonly rows: RawRow[];
  toolActions: number;
  panels: number;
  /** Indeterminate tool actions no operator has resolved, in order. */
  readonly open: string[];
  /** Resolved indeterminate tool actions and how, in order. */
  readonly resolved: (readonly [id: string, how: string])[];
  /** Tool actions per settlement, invocations per status, refusals per code: first met first. */
  readonly settlements: Map<string, number>;
  readonly statuses: Map<string, number>;
  readonly refusals: Map<string, number>;
  /** The record times of its invocations and tool actions. */
  readonly span: SpanFold;
}

/** True when the participant has an unresolved indeterminate tool action or a stopped scheduler. */
export function summaryNeedsOperator(participant: ParticipantSummary): boolean {
  return participant.schedulers.some((s) => s.lifecycle === "stopped") || participant.open.length > 0;
}

/** Everything the page shows, gathered one invocation at a time. */
export class PageSummary {
  readonly #participants = new Map<string, ParticipantSummary>();
  readonly #pending = new Map<string, PendingApproval[]>();
  readonly #decisions = new Map<string, ParticipantDecision[]>();
  readonly #pacing = new Map<string, PacingDeviation[]>();
  readonly #services = new Map<string, TimelineService>();
  readonly #events: SpanFold = {};
  #eventCount = 0;
  readonly storeUrl: string;
  readonly panels: PanelStore;

  constructor(storeUrl: string, panels: PanelStore) {
    this.storeUrl = storeUrl;
    this.panels = panels;
  }

  /** Counts an event, in commit order: the page's span starts with the events' times. */
  addEvent(event: TimelineEvent): void {
    this.#eventCount += 1;
    // A participant's place is where its history began, not where its first invocation ended.
    this.#participant(event.participant_address);
    see(this.#events, event.timestamp);
  }

  /** Takes a participant's next invocation, whole: its row and panels are made, its events may go. */
  addInvocation(address: string, invocation: TimelineInvocation): void {
    const p = this.#participant(address);
    const position = p.rows.length + 1;
    const row = rawRow(invocation, position, this.storeUrl, (make: () => DetailSpec) => {
      this.panels.add(p.index, make);
      p.panels += 1;
      return p.panels;
    });
    p.rows.push(row);
    add(p.statuses, invocationStatus(invocation).key);
    for (const [code, count] of refusalRows(invocation)) add(p.refusals, code, Number(count));
    see(p.span, invocation.operation?.startedAt);
    see(p.span, invocation.operation?.endedAt);
    for (const action of invocation.toolActions) {
      p.toolActions += 1;
      const settlement = settlementOf(action);
      add(p.settlements, settlement);
      if (settlement === "indeterminate") {
        if (needsResolution(action)) p.open.push(action.id);
        else p.resolved.push([action.id, action.operation?.resolution?.resolution ?? ""]);
      }
      for (const iso of Object.values(actionTimes(action))) see(p.span, iso);
    }
  }

  /** Takes a scheduler, after every invocation: a participant without history is listed after those with. */
  addScheduler(scheduler: TimelineScheduler): void {
    this.#participant(scheduler.participantAddress).schedulers.push(scheduler);
  }

  /**
   * Takes a call held for approval: listed in its participant's section when the page shows that
   * participant (it is not in history until it settles, so it adds none).
   */
  addPendingApproval(held: PendingApproval): void {
    const list = this.#pending.get(held.participantAddress);
    if (list) list.push(held);
    else this.#pending.set(held.participantAddress, [held]);
  }

  /** Takes an operator decision about a participant: listed in its section when the page shows it. */
  addDecision(decision: ParticipantDecision): void {
    const list = this.#decisions.get(decision.participantAddress);
    if (list) list.push(decision);
    else this.#decisions.set(decision.participantAddress, [decision]);
  }

  /** Takes a pacing deviation of a participant's service: listed in its section when the page shows it. */
  addPacingDeviation(deviation: PacingDeviation): void {
    const list = this.#pacing.get(deviation.participantAddress);
    if (list) list.push(deviation);
    else this.#pacing.set(deviation.participantAddress, [deviation]);
  }

  /** Takes a participant's execution service: shown in its section when the page shows it. */
  addService(service: TimelineService): void {
    this.#services.set(service.participantAddress, service);
  }

  /** The execution service of `address`, when one was taken. */
  service(address: string): TimelineService | undefined {
    return this.#services.get(address);
  }

  /** The pacing deviations of `address`, in the order taken. */
  pacingDeviations(address: string): readonly PacingDeviation[] {
    return this.#pacing.get(address) ?? [];
  }

  /** The operator decisions about `address`, in the order taken. */
  decisions(address: string): readonly ParticipantDecision[] {
    return this.#decisions.get(address) ?? [];
  }

  /** The calls of `address` held for approval, in the order taken. */
  pendingApprovals(address: string): readonly PendingApproval[] {
    return this.#pending.get(address) ?? [];
  }

  /** The participants as the page shows them: those that need an operator first, else in the order their history began. */
  participants(): ParticipantSummary[] {
    return [...this.#participants.values()].sort(
      (a, b) => Number(summaryNeedsOperator(b)) - Number(summaryNeedsOperator(a)),
    );
  }

  get events(): number {
    return this.#eventCount;
  }

  /** The earliest and latest time the page knows (every event's, every invocation's and tool action's record times: commit order is not time order, a triple is committed at settlement and stamped at admission), of `shown` in their order. */
  span(shown: readonly ParticipantSummary[]): { start: SpanEnd; end: SpanEnd } | undefined {
    const fold: SpanFold = { ...this.#events };
    for (const p of shown) merge(fold, p.span);
    return fold.start && fold.end ? { start: fold.start, end: fold.end } : undefined;
  }

  #participant(address: string): ParticipantSummary {
    let p = this.#participants.get(address);
    if (!p) {
      p = {
        address,
        index: this.#participants.size,
        schedulers: [],
        rows: [],
        toolActions: 0,
        panels: 0,
        open: [],
        resolved: [],
        settlements: new Map(),
        statuses: new Map(),
        refusals: new Map(),
        span: {},
      };
      this.#participants.set(address, p);
    }
    return p;
  }
}

/** Tool actions per settlement over `shown`, the known settlements first . */
export function settlementCounts(shown: readonly ParticipantSummary[]): Map<string, number> {
  const counts = new Map<string, number>(SETTLEMENTS.map((settlement) => [settlement, 0]));
  for (const p of shown) for (const [s, n] of p.settlements) add(counts, s, n);
  return counts;
}

/** Invocations per status over `shown`, in the order a status is first met. */
export function statusCounts(shown: readonly ParticipantSummary[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of shown) for (const [s, n] of p.statuses) add(counts, s, n);
  return counts;
}
