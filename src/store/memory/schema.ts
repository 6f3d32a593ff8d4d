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
}
