import type { Pool } from "pg";
import { type HeldLeaseRow, type LeaseRow, leaseOf, leaseStatements } from "../sql/leases.js";
import type { Fence, Lease } from "../types.js";

/**
 * The first CTE of every fenced write: a row only when the fence's token is current. FOR SHARE
 * makes a takeover (an UPDATE of the lease row) wait for in-flight writes of the old owner, while
 * that owner's own concurrent writes do not wait for each other.
 */
export const FENCED =
  "fence AS (SELECT 1 FROM leases WHERE participant_address = $1::text AND token = $2::bigint AND owner_id IS NOT NULL FOR SHARE)";
/** The first CTE of an unfenced write: always one row. */
export const UNFENCED = "fence AS (SELECT 1 WHERE $1::text IS NULL AND $2::bigint IS NULL)";

/** The `$1, $2` parameters every write statement starts with. */
export function fenceValues(fence: Fence | undefined): [string | null, number | null] {
  return fence ? [fence.participantAddress, fence.token] : [null, null];
}

// Expiry follows the database clock, so every host agrees.
const SQL = leaseStatements({
  placeholder: (n, type) => `$${n}::${type}`,
  now: "(extract(epoch FROM now()) * 1000)::bigint",
});

/** Scheduler ownership leases; expiry follows the database clock so every host agrees. */
export class PostgresLeases {
  readonly #pool: Pool;

  constructor(pool: Pool) {
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

  /** Gives the lease up if its token is still current. */
  async release(lease: Lease): Promise<void> {
    await this.#pool.query({
      name: "raes_lease_release",
      text: SQL.release,
      values: [lease.participantAddress, lease.token],
    });
  }
}
