import type { Database, Statement, Transaction } from "better-sqlite3";
import { LeaseLostError } from "../errors.js";
import type { Fence, Lease } from "../types.js";

interface LeaseRow {
  token: number;
  expires_at: number;
}

interface HeldLeaseRow extends LeaseRow {
  owner_id: string;
}

/** Scheduler ownership leases in the `leases` table; expiry follows the injected clock. */
export class SqliteLeases {
  readonly #now: () => number;
  readonly #transaction: Transaction<(work: () => Lease | undefined) => Lease | undefined>;
  readonly #acquire: Statement<
    [{ participant: string; owner: string; replacing: string | null; now: number; expires: number }],
    LeaseRow
  >;
  readonly #release: Statement<[string, number]>;
  readonly #current: Statement<[string], HeldLeaseRow>;

  constructor(db: Database, now: () => number) {
    this.#now = now;
    this.#transaction = db.transaction((work: () => Lease | undefined) => work());
    // The row is kept on release so the next owner's token still grows past every earlier one.
    this.#acquire = db.prepare(`
      INSERT INTO leases (participant_address, owner_id, token, expires_at)
      VALUES (@participant, @owner, 1, @expires)
      ON CONFLICT (participant_address) DO UPDATE SET
        token = CASE WHEN leases.owner_id = excluded.owner_id THEN leases.token ELSE leases.token + 1 END,
        owner_id = excluded.owner_id,
        expires_at = excluded.expires_at
      WHERE leases.owner_id IS NULL OR leases.owner_id = excluded.owner_id OR leases.owner_id = @replacing
        OR leases.expires_at <= @now
      RETURNING token, expires_at`);
    this.#release = db.prepare(
      "UPDATE leases SET owner_id = NULL, expires_at = 0 WHERE participant_address = ? AND token = ? AND owner_id IS NOT NULL",
    );
    this.#current = db.prepare(
      "SELECT owner_id, token, expires_at FROM leases WHERE participant_address = ? AND owner_id IS NOT NULL",
    );
  }

  /** Takes or renews the lease in its own write transaction; `replacing` names a dead owner to take it from. */
  acquire(
    participantAddress: string,
    ownerId: string,
    ttlMs: number,
    replacing: string | undefined,
  ): Lease | undefined {
    return this.#transaction.immediate(() => {
      const now = this.#now();
      const row = this.#acquire.get({
        participant: participantAddress,
        owner: ownerId,
        replacing: replacing ?? null,
        now,
        expires: now + ttlMs,
      });
      return row && { participantAddress, ownerId, token: row.token, expiresAt: row.expires_at };
    });
  }

  /** The participant's lease while an owner holds it, expired or not. */
  get(participantAddress: string): Lease | undefined {
    const row = this.#current.get(participantAddress);
    return row && { participantAddress, ownerId: row.owner_id, token: row.token, expiresAt: row.expires_at };
  }

  /** Gives the lease up, in its own write transaction, if its token is still current. */
  release(lease: Lease): void {
    this.#transaction.immediate(() => {
      this.#release.run(lease.participantAddress, lease.token);
      return undefined;
    });
  }

  /** Throws `LeaseLostError` unless the fence's token is current; call inside the write's transaction. */
  check(fence: Fence | undefined): void {
    if (!fence) return;
    const row = this.#current.get(fence.participantAddress);
    if (row?.token !== fence.token) {
      throw new LeaseLostError(`lease of ${fence.participantAddress} is not held by token ${fence.token}`);
    }
  }
}
