import { leaseLost } from "../errors.js";
import { byteOrder, FORGET_PROCESS_AFTER_MS } from "../membership.js";
import type { Fence, Lease, ProcessMember } from "../types.js";

/** Scheduler ownership leases with fencing tokens, kept in process memory. */
export class MemoryLeases {
  readonly #leases = new Map<string, Lease>();
  readonly #now: () => number;
  /** Each participant's last token, kept past release so its next owner's token still grows (as the SQL stores). */
  readonly #lastTokens = new Map<string, number>();
  /** Live runtime processes: owner id → heartbeat expiry. */
  readonly #processes = new Map<string, number>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Takes the lease when free, expired, ours or held by `replacing`; undefined while another owner's is live. */
  acquire(participantAddress: string, ownerId: string, ttlMs: number, replacing?: string): Lease | undefined {
    const now = this.#now();
    const current = this.#leases.get(participantAddress);
    const takeable =
      !current || current.ownerId === ownerId || current.ownerId === replacing || current.expiresAt <= now;
    if (!takeable) return undefined;
    const token =
      current && current.ownerId === ownerId
        ? current.token
        : (this.#lastTokens.get(participantAddress) ?? 0) + 1;
    this.#lastTokens.set(participantAddress, token);
    const lease: Lease = { participantAddress, ownerId, token, expiresAt: now + ttlMs };
    this.#leases.set(participantAddress, lease);
    return lease;
  }

  /** The participant's current lease, if one is held. */
  get(participantAddress: string): Lease | undefined {
    return this.#leases.get(participantAddress);
  }

  /** Gives the lease up if it is still the current one. */
  release(lease: Lease): void {
    const current = this.#leases.get(lease.participantAddress);
    if (current?.token === lease.token) this.#leases.delete(lease.participantAddress);
  }

  /** Extends each lease its owner still holds under the same token; returns those renewed. */
  renew(leases: readonly Lease[], ttlMs: number): Lease[] {
    const expiresAt = this.#now() + ttlMs;
    const renewed: Lease[] = [];
    for (const lease of leases) {
      const current = this.#leases.get(lease.participantAddress);
      if (current?.ownerId !== lease.ownerId || current.token !== lease.token) continue;
      const next = { ...current, expiresAt };
      this.#leases.set(lease.participantAddress, next);
      renewed.push(next);
    }
    return renewed;
  }

  /** Every held lease, ordered by participant. */
  list(): Lease[] {
    return [...this.#leases.values()].sort((a, b) => byteOrder(a.participantAddress, b.participantAddress));
  }

  /** Marks the process live for `ttlMs` more and returns the live ones by owner id. */
  heartbeat(ownerId: string, ttlMs: number): ProcessMember[] {
    const now = this.#now();
    for (const [id, expiresAt] of this.#processes)
      if (expiresAt <= now - FORGET_PROCESS_AFTER_MS) this.#processes.delete(id);
    this.#processes.set(ownerId, now + ttlMs);
    return [...this.#processes]
      .filter(([, expiresAt]) => expiresAt > now)
      .map(([id, expiresAt]) => ({ ownerId: id, expiresAt }))
      .sort((a, b) => byteOrder(a.ownerId, b.ownerId));
  }

  /** Forgets the process. */
  leave(ownerId: string): void {
    this.#processes.delete(ownerId);
  }

  /** Throws `LeaseLostError` unless the fence's token is the participant's current one. */
  check(fence: Fence | undefined): void {
    if (!fence) return;
    const lease = this.#leases.get(fence.participantAddress);
    if (!lease || lease.token !== fence.token) {
      throw leaseLost(fence);
    }
  }
}
