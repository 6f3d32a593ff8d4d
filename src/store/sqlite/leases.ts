import type { Database, Statement, Transaction } from "better-sqlite3";
import { leaseLost } from "../errors.js";
import { byteOrder } from "../membership.js";
import {
  type HeldLeaseRow,
  type LeaseRow,
  type ListedLeaseRow,
  leaseOf,
  leaseStatements,
  type MemberRow,
  memberOf,
} from "../sql/index.js";
import type { Fence, Lease, ProcessMember } from "../types.js";

type Numbered = Record<string, string | number | null>;

// Expiry follows the injected clock, bound as the fifth parameter.
const SQL = leaseStatements({ placeholder: (n) => `@p${n}`, now: "@p5" });

/**
 * True while the fence's token is current (the test `check` makes), bound as two anonymous
 * parameters: participant, then token. A write that carries it in its own WHERE needs no read first.
 */
export const FENCE_HELD =
  "EXISTS (SELECT 1 FROM leases WHERE participant_address = ? AND owner_id IS NOT NULL AND token = ?)";

/** Binds values to `@p1`, `@p2`, … (better-sqlite3 binds numbered `?n` parameters badly). */
function numbered(...values: (string | number | null)[]): Numbered {
  return Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));
}

/** Scheduler ownership leases in the `leases` table; expiry follows the injected clock. */
export class SqliteLeases {
  readonly #now: () => number;
  readonly #transaction: Transaction<(work: () => Lease | undefined) => Lease | undefined>;
  readonly #acquire: Statement<[Numbered], LeaseRow>;
  readonly #release: Statement<[Numbered]>;
  readonly #renew: Statement<[Numbered], LeaseRow>;
  readonly #renewAll: Transaction<(leases: readonly Lease[], ttlMs: number) => Lease[]>;
  readonly #current: Statement<[Numbered], HeldLeaseRow>;
  readonly #list: Statement<[], ListedLeaseRow>;
  readonly #heartbeat: Statement<[Numbered]>;
  readonly #members: Statement<[Numbered], MemberRow>;
  readonly #forget: Statement<[Numbered]>;
  readonly #leave: Statement<[Numbered]>;
  readonly #membership: Transaction<(work: () => ProcessMember[]) => ProcessMember[]>;

  constructor(db: Database, now: () => number) {
    this.#now = now;
    this.#transaction = db.transaction((work: () => Lease | undefined) => work());
    this.#acquire = db.prepare(SQL.acquire);
    this.#release = db.prepare(SQL.release);
    this.#renew = db.prepare(SQL.renew);
    this.#renewAll = db.transaction((leases: readonly Lease[], ttlMs: number) => {
      const now = this.#now();
      const renewed: Lease[] = [];
      for (const lease of leases) {
        const { participantAddress: participant, ownerId, token } = lease;
        const row = this.#renew.get(numbered(participant, ownerId, ttlMs, token, now));
        if (row) renewed.push(leaseOf(participant, ownerId, row));
      }
      return renewed;
    });
    this.#current = db.prepare(SQL.current);
    this.#list = db.prepare(SQL.list);
    this.#heartbeat = db.prepare(SQL.heartbeat);
    this.#members = db.prepare(SQL.members);
    this.#forget = db.prepare(SQL.forget);
    this.#leave = db.prepare(SQL.leave);
    this.#membership = db.transaction((work: () => ProcessMember[]) => work());
  }

  /** Takes or renews the lease in its own write transaction; `replacing` names a dead owner to take it from. */
  acquire(
    participantAddress: string,
    ownerId: string,
    ttlMs: number,
    replacing: string | undefined,
  ): Lease | undefined {
    return this.#transaction.immediate(() => {
      const values = numbered(participantAddress, ownerId, ttlMs, replacing ?? null, this.#now());
      const row = this.#acquire.get(values);
      return row && leaseOf(participantAddress, ownerId, row);
    });
  }

  /** The participant's lease while an owner holds it, expired or not. */
  get(participantAddress: string): Lease | undefined {
    const row = this.#current.get(numbered(participantAddress));
    return row && leaseOf(participantAddress, row.owner_id, row);
  }

  /** Gives the lease up, in its own write transaction, if its token is still current. */
  release(lease: Lease): void {
    this.#transaction.immediate(() => {
      this.#release.run(numbered(lease.participantAddress, lease.token));
      return undefined;
    });
  }

  /** Extends, in one write transaction, each lease its owner still holds under the same token. */
  renew(leases: readonly Lease[], ttlMs: number): Lease[] {
    return this.#renewAll.immediate(leases, ttlMs);
  }

  /** Every held lease, ordered by participant. */
  list(): Lease[] {
    return this.#list
      .all()
      .map((row) => leaseOf(row.participant_address, row.owner_id, row))
      .sort((a, b) => byteOrder(a.participantAddress, b.participantAddress));
  }

  /** Forgets long-expired processes, marks this one live for `ttlMs` more, and lists the live ones. */
  heartbeat(ownerId: string, ttlMs: number): ProcessMember[] {
    return this.#membership.immediate(() => {
      const now = this.#now();
      // @p5 is `now` in every statement of this dialect; the unused slots stay null.
      this.#forget.run(numbered(null, null, null, null, now));
      this.#heartbeat.run(numbered(ownerId, ttlMs, null, null, now));
      const rows = this.#members.all(numbered(ownerId, null, null, null, now));
      return rows.map(memberOf).sort((a, b) => byteOrder(a.ownerId, b.ownerId));
    });
  }

  /** Removes the process from the live ones. */
  leave(ownerId: string): void {
    this.#leave.run(numbered(ownerId));
  }

  /** Throws `LeaseLostError` unless the fence's token is current; call inside the write's transaction. */
  check(fence: Fence | undefined): void {
    if (!fence) return;
    const row = this.#current.get(numbered(fence.participantAddress));
    if (row?.token !== fence.token) throw leaseLost(fence);
  }
}
