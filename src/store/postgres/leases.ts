import { byteOrder, FORGET_PROCESS_AFTER_MS } from "../membership.js";
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
import type { Queryable } from "./sticky.js";

/**
 * The first CTE of every fenced write: a row only when the fence's token is current. FOR SHARE
 * makes a takeover (an UPDATE of the lease row) wait for in-flight writes of the old owner, while
 * that owner's own concurrent writes do not wait for each other.
 */
export const FENCED =
  "fence AS (SELECT 1 FROM leases WHERE participant_address = $1::text AND token = $2::bigint AND owner_id IS NOT NULL FOR SHARE)";
/** The first CTE of an unfenced write: always one row. */
export const UNFENCED = "fence AS (SELECT 1 WHERE $1::text IS NULL AND $2::bigint IS NULL)";

/** The fence as a plain statement's condition, locked as `FENCED` is. */
export const FENCE_HOLDS =
  "EXISTS (SELECT 1 FROM leases WHERE participant_address = $1::text AND token = $2::bigint AND owner_id IS NOT NULL FOR SHARE)";
/** No fence: a condition that always holds. */
export const NO_FENCE = "$1::text IS NULL AND $2::bigint IS NULL";
/** Whether the token is still the participant's current one (`$1`, `$2` as every write). */
export const FENCE_HELD =
  "SELECT 1 FROM leases WHERE participant_address = $1::text AND token = $2::bigint AND owner_id IS NOT NULL";

/** The `$1, $2` parameters every write statement starts with. */
export function fenceValues(fence: Fence | undefined): [string | null, number | null] {
  return fence ? [fence.participantAddress, fence.token] : [null, null];
}

// Expiry follows the database clock, so every host agrees.
const NOW = "(extract(epoch FROM now()) * 1000)::bigint";
const SQL = leaseStatements({ placeholder: (n, type) => `$${n}::${type}`, now: NOW });

/**
 * One round trip per heartbeat: forget long-expired processes (rows another heartbeat is deleting
 * are skipped, so two never wait on each other), upsert this one, and list the live ones. The
 * statement's snapshot does not see its own upsert, hence the UNION with it.
 */
const HEARTBEAT = `WITH stale AS (
    SELECT owner_id FROM runtime_processes WHERE expires_at <= ${NOW} - ${FORGET_PROCESS_AFTER_MS}
      AND owner_id <> $1::text FOR UPDATE SKIP LOCKED
  ), forgotten AS (
    DELETE FROM runtime_processes WHERE owner_id IN (SELECT owner_id FROM stale)
  ), beat AS (
    INSERT INTO runtime_processes (owner_id, expires_at) VALUES ($1::text, ${NOW} + $2::bigint)
    ON CONFLICT (owner_id) DO UPDATE SET expires_at = excluded.expires_at
    RETURNING owner_id, expires_at
  )
  SELECT owner_id, expires_at FROM runtime_processes WHERE expires_at > ${NOW} AND owner_id <> $1::text
  UNION ALL SELECT owner_id, expires_at FROM beat`;

/** `renew` for many leases in one statement: each row its owner still holds under the same token. */
const RENEW = `UPDATE leases AS l SET expires_at = ${NOW} + $2::bigint
  FROM unnest($3::text[], $4::bigint[]) AS t(participant_address, token)
  WHERE l.participant_address = t.participant_address AND l.token = t.token AND l.owner_id = $1::text
  RETURNING l.participant_address, l.owner_id, l.token, l.expires_at`;

/** Scheduler ownership leases; expiry follows the database clock so every host agrees. */
export class PostgresLeases {
  readonly #pool: Queryable;

  constructor(pool: Queryable) {
    this.#pool = pool;
  }

  /**
   * Takes or renews the lease in one statement; undefined while another owner's lease is live,
   * unless that owner is `replacing` (known dead).
   */
  async acquire(
    participantAddress: string,
    ownerId: string,
    ttlMs: number,
    replacing: string | undefined,
  ): Promise<Lease | undefined> {
    const { rows } = await this.#pool.query<LeaseRow>({
      name: "raes_lease_acquire",
      text: SQL.acquire,
      values: [participantAddress, ownerId, Math.round(ttlMs), replacing ?? null],
    });
    const row = rows[0];
    return row && leaseOf(participantAddress, ownerId, row);
  }

  /** The participant's lease while an owner holds it, expired or not. */
  async get(participantAddress: string): Promise<Lease | undefined> {
    const { rows } = await this.#pool.query<HeldLeaseRow>({
      name: "raes_lease_current",
      text: SQL.current,
      values: [participantAddress],
    });
    const row = rows[0];
    return row && leaseOf(participantAddress, row.owner_id, row);
  }

  /** Extends, in one statement, each lease its owner still holds under the same token. */
  async renew(leases: readonly Lease[], ttlMs: number): Promise<Lease[]> {
    const renewed: Lease[] = [];
    // One statement per owner: a caller renews its own leases, so this is one statement.
    for (const ownerId of new Set(leases.map((l) => l.ownerId))) {
      const mine = leases.filter((l) => l.ownerId === ownerId);
      const { rows } = await this.#pool.query<ListedLeaseRow>({
        name: "raes_lease_renew",
        text: RENEW,
        values: [ownerId, Math.round(ttlMs), mine.map((l) => l.participantAddress), mine.map((l) => l.token)],
      });
      for (const row of rows) renewed.push(leaseOf(row.participant_address, row.owner_id, row));
    }
    return renewed;
  }

  /** Every held lease, ordered by participant. */
  async list(): Promise<Lease[]> {
    const { rows } = await this.#pool.query<ListedLeaseRow>({ name: "raes_lease_list", text: SQL.list });
    return rows
      .map((row) => leaseOf(row.participant_address, row.owner_id, row))
      .sort((a, b) => byteOrder(a.participantAddress, b.participantAddress));
  }

  /** Marks the process live for `ttlMs` more and lists the live ones, in one statement. */
  async heartbeat(ownerId: string, ttlMs: number): Promise<ProcessMember[]> {
    const { rows } = await this.#pool.query<MemberRow>({
      name: "raes_process_heartbeat",
      text: HEARTBEAT,
      values: [ownerId, Math.round(ttlMs)],
    });
    return rows.map(memberOf).sort((a, b) => byteOrder(a.ownerId, b.ownerId));
  }

  /** Removes the process from the live ones. */
  async leave(ownerId: string): Promise<void> {
    await this.#pool.query({ name: "raes_process_leave", text: SQL.leave, values: [ownerId] });
  }

  /** Gives the lease up if its token is still current. */
  async release(lease: Lease): Promise<void> {
    await this.#pool.query({
      name: "raes_lease_release",
      text: SQL.release,
      values: [lease.participantAddress, lease.token],
    });
  }
}
