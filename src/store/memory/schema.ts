import {
  type ChainHead,
  EMPTY_OPERATOR_CHAIN,
  type HistoryEvent,
  type OperatorChainHead,
  type OperatorDecision,
  type PacingDeviationRecord,
  type ParticipantServiceRecord,
  type ResourceBudgetEventRecord,
} from "../../records/index.js";
import type { ClockRecord, InvocationRecord, SchedulerRecord, ToolActionRecord } from "../types.js";

/** The in-memory tables; Map insertion order is the listing order. */
export class MemoryTables {
  readonly clocks = new Map<string, ClockRecord>();
  readonly schedulers = new Map<string, SchedulerRecord>();
  readonly invocations = new Map<string, InvocationRecord>();
  readonly toolActions = new Map<string, ToolActionRecord>();
  readonly toolCallKeys = new Set<string>();
  readonly actionsByInvocation = new Map<string, string[]>();
  readonly events: HistoryEvent[] = [];
  readonly chains = new Map<string, ChainHead>();
  readonly services = new Map<string, ParticipantServiceRecord>();
  /** Each shared v3 pool's version, by pool key (schema step 19). */
  readonly pools = new Map<string, number>();
  /** Every budget event (schema step 22): sequence n at index n - 1. */
  readonly budgetEvents: ResourceBudgetEventRecord[] = [];
  /** The budget events recorded, by schedule key then seq: each is recorded once. */
  readonly budgetEventKeys = new Set<string>();
  /** Pacing deviations by participant, then ref, in recording order. */
  readonly pacing = new Map<string, Map<string, PacingDeviationRecord>>();
  /** The operator chain: decision n at index n - 1, and its head. */
  readonly decisions: OperatorDecision[] = [];
  decisionHead: OperatorChainHead = EMPTY_OPERATOR_CHAIN;
  readonly #byCreation: CreationKey[] = [];
  #sorted = true;

  /** Adds an operation to the creation-order index, which is sorted when next read. */
  indexCreation(key: CreationKey): void {
    const last = this.#byCreation[this.#byCreation.length - 1];
    // Records sharing a timestamp (an injected clock) arrive out of id order: placing each one on
    // arrival walked back over its equals and made a long run quadratic, so one sort waits for a read.
    if (last && isBefore(key, last)) this.#sorted = false;
    this.#byCreation.push(key);
  }

  /** Every invocation and tool action by creation time then id, oldest first: the listing's index. */
  byCreation(): readonly CreationKey[] {
    if (!this.#sorted) {
      this.#byCreation.sort((a, b) => (isBefore(a, b) ? -1 : isBefore(b, a) ? 1 : 0));
      this.#sorted = true;
    }
    return this.#byCreation;
  }
}

/** Where one operation sits in creation order. */
export interface CreationKey {
  readonly createdAt: string;
  readonly id: string;
  readonly invocation: boolean;
}

function isBefore(a: CreationKey, b: CreationKey): boolean {
  return a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);
}

/** The key of a scheduler row: one per (participant, policy). */
export function schedulerKey(participantAddress: string, policyAddress: string): string {
  return `${participantAddress}\u0000${policyAddress}`;
}

/** The key that makes a tool call unique within its invocation. */
export function toolCallKey(invocationId: string, toolCallId: string): string {
  return `${invocationId}\u0000${toolCallId}`;
}
