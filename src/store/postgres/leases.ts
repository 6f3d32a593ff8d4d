import type { Pool } from "pg";
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

// The lease row is kept on release so the next owner's token still grows past every earlier one.
const ACQUIRE = `
  INSERT INTO leases (participant_address, owner_id, token, expires_at)
  SELECT $1::text, $2::text, 1, (extract(epoch FROM now()) * 1000)::bigint + $3::bigint
  ON CONFLICT (participant_address) DO UPDATE SET
    token = CASE WHEN leases.owner_id = excluded.owner_id THEN leases.token ELSE leases.token + 1 END,
    owner_id = excluded.owner_id,
    expires_at = excluded.expires_at
  WHERE leases.owner_id IS NULL OR leases.owner_id = excluded.owner_id OR leases.owner_id = $4::text
    OR leases.expires_at <= excluded.expires_at - $3::bigint
  RETURNING token, expires_at`;
const CURRENT = `SELECT owner_id, token, expires_at FROM leases
  WHERE participant_address = $1::text AND owner_id IS NOT NULL`;
const RELEASE = `UPDATE leases SET owner_id = NULL, expires_at = 0
  WHERE participant_address = $1::text AND token = $2::bigint AND owner_id IS NOT NULL`;

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
    const { rows } = await this.#pool.query<{ token: number; expires_at: number }>({
      name: "raes_lease_acquire",
      text: ACQUIRE,
      values: [participantAddress, ownerId, Math.round(ttlMs), replacing ?? null],
    });
    const row = rows[0];
    return row && { participantAddress, ownerId, token: row.token, expiresAt: row.expires_at };
  }

  /** The participant's lease while an owner holds it, expired or not. */
  async get(participantAddress: string): Promise<Lease | undefined> {
    const { rows } = await this.#pool.query<{ owner_id: string; token: number; expires_at: number }>({
      name: "raes_lease_current",
      text: CURRENT,
      values: [participantAddress],
    });
    const row = rows[0];
    return row && { participantAddress, ownerId: row.owner_id, token: row.token, expiresAt: row.expires_at };
  }

  /** Gives the lease up if its token is still current. */
  async release(lease: Lease): Promise<void> {
    await this.#pool.query({
      name: "raes_lease_release",
      text: RELEASE,
      values: [lease.participantAddress, lease.token],
    });
  }
}
