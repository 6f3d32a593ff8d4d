import type { ResolutionRecord } from "../../operations/index.js";
import type { ToolActionPhase } from "../../port/index.js";
import { StoreConflictError } from "../errors.js";
import type { InvocationCommit, InvocationRecord, SchedulerRecord, ToolActionRecord } from "../types.js";
import { schedulerKey, toolCallKey } from "./rows.js";
import type { MemoryTables } from "./schema.js";

/** Inserts or replaces a scheduler. */
export function putScheduler(tables: MemoryTables, scheduler: SchedulerRecord): void {
  tables.schedulers.set(schedulerKey(scheduler.participantAddress, scheduler.policyAddress), scheduler);
}

/** Inserts a running invocation with its scheduler; conflict when the id exists. */
export function openInvocation(
  tables: MemoryTables,
  invocation: InvocationRecord,
  scheduler: SchedulerRecord,
): void {
  if (tables.invocations.has(invocation.id))
    throw new StoreConflictError(`invocation ${invocation.id} exists`);
  tables.invocations.set(invocation.id, invocation);
  putScheduler(tables, scheduler);
}

/** Inserts a tool action claim; conflict when its id or tool call exists. */
export function insertToolAction(tables: MemoryTables, action: ToolActionRecord): void {
  const callKey = toolCallKey(action.invocationId, action.toolCallId);
  if (!tables.invocations.has(action.invocationId)) {
    throw new StoreConflictError(`tool action ${action.id} names no invocation ${action.invocationId}`);
  }
  if (tables.toolActions.has(action.id) || tables.toolCallKeys.has(callKey)) {
    throw new StoreConflictError(`tool action ${action.id} exists`);
  }
  addToolAction(tables, action);
}

function addToolAction(tables: MemoryTables, action: ToolActionRecord): void {
  tables.toolActions.set(action.id, action);
  tables.toolCallKeys.add(toolCallKey(action.invocationId, action.toolCallId));
  const ids = tables.actionsByInvocation.get(action.invocationId);
  if (ids) ids.push(action.id);
  else tables.actionsByInvocation.set(action.invocationId, [action.id]);
}

/** Replaces a tool action while it is in `expectedPhase`. */
export function updateToolAction(
  tables: MemoryTables,
  action: ToolActionRecord,
  expectedPhase: ToolActionPhase,
): boolean {
  const current = tables.toolActions.get(action.id);
  if (!current || current.phase !== expectedPhase) return false;
  tables.toolActions.set(action.id, action);
  return true;
}

/** Closes a running invocation with its settlements, events and scheduler. */
export function commitInvocation(tables: MemoryTables, commit: InvocationCommit): void {
  const current = tables.invocations.get(commit.invocation.id);
  if (current?.state !== "running") {
    throw new StoreConflictError(`invocation ${commit.invocation.id} is not open`);
  }
  // Checked before any change so a duplicate tool call leaves nothing half-written.
  const added = commit.toolActions.filter((a) => !tables.toolActions.has(a.id));
  const addedKeys = new Set<string>();
  for (const action of added) {
    const callKey = toolCallKey(action.invocationId, action.toolCallId);
    if (tables.toolCallKeys.has(callKey) || addedKeys.has(callKey)) {
      throw new StoreConflictError(`tool call ${action.toolCallId} of ${action.invocationId} exists`);
    }
    addedKeys.add(callKey);
  }
  tables.invocations.set(commit.invocation.id, commit.invocation);
  for (const action of commit.toolActions) {
    if (added.includes(action)) addToolAction(tables, action);
    else tables.toolActions.set(action.id, action);
  }
  for (const draft of commit.events) tables.events.push({ ...draft, sequence: tables.events.length + 1 });
  putScheduler(tables, commit.scheduler);
}

/** Records a resolution on an indeterminate, unresolved tool action. */
export function recordResolution(tables: MemoryTables, id: string, resolution: ResolutionRecord): boolean {
  const action = tables.toolActions.get(id);
  if (action?.settlement !== "indeterminate" || action.resolution !== undefined) return false;
  tables.toolActions.set(id, { ...action, resolution, updatedAt: resolution.resolvedAt });
  return true;
}
