import { FORGET_PROCESS_AFTER_MS } from "../membership.js";
import type { Lease, ProcessMember } from "../types.js";

/** How a dialect spells a lease statement's parameters and the current time in milliseconds. */
export interface LeaseDialect {
  /** The placeholder of the n-th parameter (from 1), cast to `type` where the dialect needs it. */
  placeholder(n: number, type: "text" | "bigint"): string;
  /** The current time in ms: the injected clock's parameter, or the database's own clock. */
  readonly now: string;
}

/** The lease and membership statements of a dialect. */
export interface LeaseStatements {
  /** Every held lease. */
  readonly list: string;
  /** Parameters: owner, ttl in ms, and any for `now`. Inserts or extends the process's heartbeat. */
  readonly heartbeat: string;
  /** Parameters: owner, and any for `now`. The live processes; the caller's own row is always live. */
  readonly members: string;
  /** Parameters: any for `now`. Deletes processes whose heartbeat expired long ago. */
  readonly forget: string;
  /** Parameter: owner. */
  readonly leave: string;
  /** Parameters: participant, owner, ttl in ms, the owner it replaces (or null), and any for `now`. */
  readonly acquire: string;
  /** Parameter: participant. */
  readonly current: string;
  /** Parameters: participant, token. */
  readonly release: string;
  /** Parameters: participant, owner, ttl, token. */
  readonly renew: string;
}

/** A lease row as `acquire` returns it; `current` adds `owner_id`. */
export interface LeaseRow {
  readonly token: number;
  readonly expires_at: number;
}

/** A lease row as `current` returns it. */
export interface HeldLeaseRow extends LeaseRow {
  readonly owner_id: string;
}

/** The lease SQL of one dialect; every SQL store runs the same statements. */
export function leaseStatements(dialect: LeaseDialect): LeaseStatements {
  const p = (n: number, type: "text" | "bigint" = "text") => dialect.placeholder(n, type);
  const ttl = p(3, "bigint");
  // The row is kept on release so the next owner's token still grows past every earlier one; a
  // new owner's token is the participant's last one plus one.
  const acquire = `
    INSERT INTO leases (participant_address, owner_id, token, expires_at)
    VALUES (${p(1)}, ${p(2)}, 1, ${dialect.now} + ${ttl})
    ON CONFLICT (participant_address) DO UPDATE SET
      token = CASE WHEN leases.owner_id = excluded.owner_id THEN leases.token ELSE leases.token + 1 END,
      owner_id = excluded.owner_id,
      expires_at = excluded.expires_at
    WHERE leases.owner_id IS NULL OR leases.owner_id = excluded.owner_id OR leases.owner_id = ${p(4)}
      OR leases.expires_at <= excluded.expires_at - ${ttl}
    RETURNING token, expires_at`;
  const current = `SELECT owner_id, token, expires_at FROM leases
    WHERE participant_address = ${p(1)} AND owner_id IS NOT NULL`;
  const release = `UPDATE leases SET owner_id = NULL, expires_at = 0
    WHERE participant_address = ${p(1)} AND token = ${p(2, "bigint")} AND owner_id IS NOT NULL`;
  const list = `SELECT participant_address, owner_id, token, expires_at FROM leases
    WHERE owner_id IS NOT NULL ORDER BY participant_address`;
  const heartbeat = `INSERT INTO runtime_processes (owner_id, expires_at) VALUES (${p(1)}, ${dialect.now} + ${p(2, "bigint")})
    ON CONFLICT (owner_id) DO UPDATE SET expires_at = excluded.expires_at`;
  const members = `SELECT owner_id, expires_at FROM runtime_processes
    WHERE expires_at > ${dialect.now} OR owner_id = ${p(1)} ORDER BY owner_id`;
  const forget = `DELETE FROM runtime_processes WHERE expires_at <= ${dialect.now} - ${FORGET_PROCESS_AFTER_MS}`;
  const leave = `DELETE FROM runtime_processes WHERE owner_id = ${p(1)}`;
  // Only the same owner's same token: a lease released, or taken by another owner since, stays so.
  const renew = `UPDATE leases SET expires_at = ${dialect.now} + ${ttl}
    WHERE participant_address = ${p(1)} AND owner_id = ${p(2)} AND token = ${p(4, "bigint")}
    RETURNING token, expires_at`;
  return { acquire, current, release, list, heartbeat, members, forget, leave, renew };
}

/** A lease row as `list` returns it. */
export interface ListedLeaseRow extends HeldLeaseRow {
  readonly participant_address: string;
}

/** A membership row. */
export interface MemberRow {
  readonly owner_id: string;
  readonly expires_at: number;
}

/** The member a row describes. */
export function memberOf(row: MemberRow): ProcessMember {
  return { ownerId: row.owner_id, expiresAt: Number(row.expires_at) };
}

/** The lease `ownerId` holds by `row`. */
export function leaseOf(participantAddress: string, ownerId: string, row: LeaseRow): Lease {
  return { participantAddress, ownerId, token: row.token, expiresAt: row.expires_at };
}
