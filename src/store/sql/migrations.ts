import { type StoreSchemaDamagedError, StoreUnavailableError, schemaDamaged } from "../errors.js";

/** One forward-only schema step. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The schema's steps, the same in every SQL store; each store writes them in its own dialect.
 * A released step is never edited, only followed by a new one.
 */
const STEPS = {
  1: "control plane",
  2: "index running invocations and per-participant history by sequence",
  3: "scheduler watermark: the clock segment and tick each schedule has run up to",
  4: "scheduler continuation: the v2 activity state committed with each attempt",
  5: "record times: invocation start and end, tool-action admission, dispatch and settlement",
  6: "operation listing: indexes by creation time per state, settlement and participant; refusal counts per invocation",
  7: "scheduler run identity: the policy's attempt bound and a one-way fingerprint of a v2 schedule's stochastic control",
  8: "recovery time: when recovery settled a tool action or consumed an invocation of a process that ended",
  9: "runtime processes: a heartbeat per process, so processes share the participants evenly",
  10: "history bodies compressed with lz4 where PostgreSQL has it (SQLite: nothing to change)",
  11: "history bodies packed in SQLite: key names and repeated strings left out (PostgreSQL: nothing to change)",
  12: "scheduler policy digest: RAES's digest of the policy a schedule runs under, so an edited policy is refused at reopen",
  13: "history chains: chain_digest on every event and each participant's chain head; events written before are chained once, in commit order",
  14: "operator decisions: every operator decision (resolve, resume, ...) with who decided, chained in one chain per store",
  15: "withheld reason: why raes-ts cancelled a tool action before dispatch (e.g. its arguments were rejected)",
  16: "approval: a tool call held for an operator's approval, and the decision (docs/guide/approvals.md)",
  17: "participant services: each participant's execution service state and episodes, the source of truth for raes control",
  18: "v3 resource ledger: each v3 schedule's share of its policy's budgets, held reservation and budget events",
  19: "v3 resource pools: a version per shared pool; a new hold is written only at the pool versions it was checked against",
  20: "pacing deviations: each loss of wall pacing per participant and clock generation, so a degraded service is known to every process",
  21: "decision details: a policy_change decision names the policy and its digests before and after (the change starts a new segment); a resolve decision names the resolution",
  22: "v3 budget events: every transition of every v3 schedule's ledger (reserve, commit, release, throttle), written with the ledger and never dropped",
  23: "v3 budget events in commit order: each event's sequence is taken under the history head's lock (PostgreSQL), so a page read --after N never misses one committed later",
  24: "scheduler execution resets: how many execution resets of its participant's service a schedule has honoured, so a reset stored while no runtime ran is honoured by the next",
} as const;

/** The step that adds the history chains; after its SQL, each store chains the events already written. */
export const CHAIN_STEP = 13;

/** A store's SQL for every step, by version. */
export type MigrationSql = { readonly [Version in keyof typeof STEPS]: string };

/** Every schema step with the store's SQL, oldest first. */
export function migrations(sql: MigrationSql): readonly Migration[] {
  return Object.entries(STEPS).map(([version, name]) => ({
    version: Number(version),
    name,
    sql: sql[Number(version) as keyof MigrationSql],
  }));
}

/** The schema version this code writes. */
export const SCHEMA_VERSION = Math.max(...Object.keys(STEPS).map(Number));

/** A database migrated by a newer raes-ts than this one. */
export function schemaTooNew(current: number): StoreUnavailableError {
  return new StoreUnavailableError(
    `control-plane schema is at version ${current}, newer than this raes-ts knows (${SCHEMA_VERSION}); upgrade raes-ts`,
  );
}

/** What a store is told whose migrations table is gone while its tables are there. */
export const MIGRATIONS_LOST =
  "its schema_migrations table is missing, so the schema step it is at is unknown";

/**
 * The refusal of step `version` of the store at `url` when it finds what it adds already there (the
 * driver's `error` says what): the migrations table lost the rows of steps applied before (or the
 * whole table), so the schema's step is unknown.
 */
export function stepAlreadyThere(url: string, version: number, error: unknown): StoreSchemaDamagedError {
  const message = error instanceof Error ? error.message : String(error);
  return schemaDamaged(
    url,
    `its schema_migrations table says step ${version} is not applied, yet what that step adds is there (${message})`,
    error,
  );
}
