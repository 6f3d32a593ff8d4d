import { hostname } from "node:os";
import {
  DEFAULT_OPERATION_LIMIT,
  newestFirst,
  type OperationEntry,
  type OperationKind,
  type OperationQuery,
  OperationState,
} from "../records/index.js";
import type { ControlPlaneStore } from "../store/index.js";
import { isDeadLocalOwner, ownerProcess } from "./owner.js";

/** Who holds the participant of an operation still in flight, judged by the rule `raes run` takes leases by. */
export const OwnerStatus = {
  /** A lease is held, not expired, by an owner not provably dead: the work may still be going on. */
  live: "live",
  /** The lease holder ran on this host, boot and PID namespace, and its process no longer exists. */
  dead: "dead",
  /** The lease expired: its owner stopped renewing it (it may have died on another host). */
  expired: "expired",
  /** No runtime holds the participant's lease. */
  none: "none",
} as const;
/** An owner status. */
export type OwnerStatus = (typeof OwnerStatus)[keyof typeof OwnerStatus];

/** The owner of an in-flight operation's participant. */
export interface OperationOwner {
  readonly status: OwnerStatus;
  readonly ownerId?: string;
  /** The owner's host and pid, when its id names them. */
  readonly host?: string;
  readonly pid?: number;
  /** When the lease expires or expired (ISO-8601), while one is held. */
  readonly leaseExpiresAt?: string;
}

/** A listed operation; one still in flight carries its owner, and what recovery makes of it when that owner is gone. */
export interface OwnedOperationEntry extends OperationEntry {
  readonly owner?: OperationOwner;
  /** Set when the owner is gone (dead, expired, none): the state the next `raes run` recovers it to. */
  readonly onRecovery?: OperationState;
}

/** Whether an operation is still in flight: admitted or running, not yet settled or ended. */
export function inFlight(state: OperationState): boolean {
  return state === OperationState.accepted || state === OperationState.running;
}

/** The state recovery settles an in-flight operation to (docs/design.md §6). */
export function recoveredState(kind: OperationKind, state: OperationState): OperationState | undefined {
  if (kind === "scheduler_invocation") return state === "running" ? "failed" : undefined;
  if (state === "running") return "indeterminate";
  return state === "accepted" ? "cancelled" : undefined;
}

/** The in-flight (state, kind) pairs that recovery turns into each settled state. */
const RECOVERED_FROM: Partial<Record<OperationState, readonly [OperationState, OperationKind][]>> = {
  indeterminate: [["running", "tool_action"]],
  cancelled: [["accepted", "tool_action"]],
  failed: [["running", "scheduler_invocation"]],
};

/** The most in-flight rows one listing looks through for gone owners. */
const IN_FLIGHT_CAP = 100_000;

/** The owner of one participant, from its lease: `now` is epoch ms (the local clock). */
export async function participantOwner(
  store: ControlPlaneStore,
  participantAddress: string,
  now: () => number = Date.now,
): Promise<OperationOwner> {
  const lease = await store.getLease(participantAddress);
  if (!lease) return { status: OwnerStatus.none };
  const named = ownerProcess(lease.ownerId);
  const status = isDeadLocalOwner(lease.ownerId)
    ? OwnerStatus.dead
    : lease.expiresAt <= now()
      ? OwnerStatus.expired
      : OwnerStatus.live;
  return {
    status,
    ownerId: lease.ownerId,
    ...(named ?? {}),
    leaseExpiresAt: new Date(lease.expiresAt).toISOString(),
  };
}

/** The owner as one phrase for people, e.g. `owner dead: pid 4242 on this host`. */
export function ownerPhrase(owner: OperationOwner): string {
  const where =
    owner.pid === undefined
      ? ""
      : ` pid ${owner.pid} on ${owner.host === hostname() ? "this host" : owner.host}`;
  if (owner.status === OwnerStatus.dead) return `owner dead:${where}`;
  if (owner.status === OwnerStatus.expired)
    return `owner's lease expired at ${owner.leaseExpiresAt}:${where}`;
  if (owner.status === OwnerStatus.none) return "no owner";
  return `owner live:${where}`;
}

/**
 * Lists operations and tells the truth about those still in flight: each carries its participant's owner,
 * and when that owner is gone (dead, expired, none) the state recovery will give it. A query for a settled
 * state (`indeterminate`, `cancelled`, `failed`) also lists the in-flight operations of gone owners that
 * recovery will settle to it. Reads only: recovery needs the lease and the compiled scenario, so it stays
 * with `raes run` (opening the store as a runtime).
 */
export async function listOperationsWithOwners(
  store: ControlPlaneStore,
  query: OperationQuery,
  now: () => number = Date.now,
): Promise<OwnedOperationEntry[]> {
  const rows: OwnedOperationEntry[] = [];
  for await (const page of ownedOperationPages(store, query, now)) rows.push(...page);
  return rows;
}

/**
 * `listOperationsWithOwners` a page at a time: the listing is read in pages of `pageSize` (default
 * the store's `PAGE_SIZE`; newest first, each after the last of the one before), so a reader holds
 * one page however large `limit`.
 */
export async function* ownedOperationPages(
  store: ControlPlaneStore,
  query: OperationQuery,
  now: () => number = Date.now,
  pageSize?: number,
): AsyncGenerator<OwnedOperationEntry[]> {
  // Loaded here, not at the top: `raes resolve --help` loads this folder and must not load the stores.
  const { operationPages, PAGE_SIZE } = await import("../store/index.js");
  const limit = query.limit ?? DEFAULT_OPERATION_LIMIT;
  const extra: OperationEntry[] = [];
  const sources = query.state === undefined ? [] : (RECOVERED_FROM[query.state] ?? []);
  for (const [state, kind] of sources) {
    if (query.kind !== undefined && query.kind !== kind) continue;
    // Every in-flight row of the kind (live owners' rows are dropped below, so a limit here could hide a
    // gone owner's): in flight are at most a few per participant, answered from the phase/state index.
    extra.push(...(await store.listOperations({ ...query, state, kind, limit: IN_FLIGHT_CAP })));
  }
  extra.sort(newestFirst);
  const owners = new Map<string, OperationOwner>();
  const own = async (entry: OperationEntry): Promise<OwnedOperationEntry | undefined> => {
    if (!inFlight(entry.state)) return entry;
    let owner = owners.get(entry.participantAddress);
    if (!owner) {
      owner = await participantOwner(store, entry.participantAddress, now);
      owners.set(entry.participantAddress, owner);
    }
    const after = owner.status === OwnerStatus.live ? undefined : recoveredState(entry.kind, entry.state);
    // A row fetched for the state it will have after recovery belongs only when its owner is gone.
    if (query.state !== undefined && entry.state !== query.state && after !== query.state) return undefined;
    return { ...entry, owner, ...(after === undefined ? {} : { onRecovery: after }) };
  };
  let left = limit;
  let next = 0;
  const take = async (entry: OperationEntry, rows: OwnedOperationEntry[]) => {
    const row = left > 0 ? await own(entry) : undefined;
    if (row) {
      rows.push(row);
      left -= 1;
    }
  };
  for await (const page of operationPages(store, { ...query, limit }, pageSize ?? PAGE_SIZE)) {
    const rows: OwnedOperationEntry[] = [];
    for (const entry of page) {
      for (; next < extra.length && newestFirst(extra[next] as OperationEntry, entry) < 0; next += 1)
        await take(extra[next] as OperationEntry, rows);
      await take(entry, rows);
    }
    if (rows.length > 0) yield rows;
    if (left <= 0) return;
  }
  const rows: OwnedOperationEntry[] = [];
  for (; next < extra.length && left > 0; next += 1) await take(extra[next] as OperationEntry, rows);
  if (rows.length > 0) yield rows;
}
