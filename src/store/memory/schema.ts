import type { HistoryEvent } from "../../records/index.js";
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
  /** Every invocation and tool action by creation time then id, oldest first: the listing's index. */
  readonly byCreation: CreationKey[] = [];

  /** Adds an operation to `byCreation`; nearly always at the end, as records are created in time order. */
  indexCreation(key: CreationKey): void {
    const list = this.byCreation;
    let at = list.length;
    while (at > 0 && isBefore(key, list[at - 1] as CreationKey)) at -= 1;
    list.splice(at, 0, key);
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
