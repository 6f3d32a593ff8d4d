import { createHash } from "node:crypto";
import type { Lease, ProcessMember } from "../../store/index.js";

/** What one process sees at a step boundary, to work out its share of the participants. */
export interface ShareView {
  readonly ownerId: string;
  /** Every participant this process can schedule, in plan order. */
  readonly participants: readonly string[];
  /** The live processes (this one included), without any known to be dead. */
  readonly members: readonly ProcessMember[];
  /** Every held lease in the store. */
  readonly leases: readonly Lease[];
  /** The participants whose lease this process holds now. */
  readonly owned: ReadonlySet<string>;
}

/** What a process does with its leases at a step boundary. */
export interface SharePlan {
  /** How many participants this process should own: ⌊M/N⌋, or ⌈M/N⌉ for the M mod N processes that own most. */
  readonly target: number;
  /** Owned participants to hand over, least preferred first. */
  readonly release: readonly string[];
  /** Participants to try to take until the target is reached, most preferred first: free ones, then ones held by no live process. */
  readonly acquire: readonly string[];
}

/** A participant's rank for an owner (rendezvous hashing), so processes prefer different participants. */
function affinity(ownerId: string, participant: string): string {
  return createHash("sha1").update(ownerId).update("\u0000").update(participant).digest("hex");
}

/**
 * Works out this process's share. Every process computes the same targets from the same view: the
 * M mod N extra participants go to the processes that own most (then by owner id), so a stable
 * division is never shuffled. A process over its target releases the surplus; one under it takes
 * free participants, or ones held by no live process (their lease may still have to expire).
 */
export function planShare(view: ShareView): SharePlan {
  const participants = new Set(view.participants);
  const live = new Set(view.members.map((m) => m.ownerId));
  live.add(view.ownerId);
  const counts = new Map<string, number>([...live].map((id) => [id, 0]));
  for (const lease of view.leases) {
    if (lease.ownerId === view.ownerId || !participants.has(lease.participantAddress)) continue;
    const n = counts.get(lease.ownerId);
    if (n !== undefined) counts.set(lease.ownerId, n + 1);
  }
  counts.set(view.ownerId, view.owned.size);
  const m = participants.size;
  const n = live.size;
  const floor = Math.floor(m / n);
  const extra = m % n;
  const order = [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  const rank = order.findIndex(([id]) => id === view.ownerId);
  const target = floor + (rank < extra ? 1 : 0);
  const byAffinity = (list: Iterable<string>) =>
    [...list]
      .map((p) => ({ p, key: affinity(view.ownerId, p) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map(({ p }) => p);
  if (view.owned.size > target) {
    const surplus = view.owned.size - target;
    return { target, release: byAffinity(view.owned).reverse().slice(0, surplus), acquire: [] };
  }
  if (view.owned.size === target) return { target, release: [], acquire: [] };
  const holder = new Map(view.leases.map((l) => [l.participantAddress, l.ownerId]));
  const free: string[] = [];
  const orphaned: string[] = [];
  for (const p of view.participants) {
    if (view.owned.has(p)) continue;
    const owner = holder.get(p);
    if (owner === undefined) free.push(p);
    else if (!live.has(owner) || owner === view.ownerId) orphaned.push(p);
  }
  return { target, release: [], acquire: [...byAffinity(free), ...byAffinity(orphaned)] };
}
