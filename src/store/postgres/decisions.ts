import type { PoolClient } from "pg";
import {
  appendDecision,
  EMPTY_OPERATOR_CHAIN,
  headAfter,
  type OperatorDecision,
  type OperatorDecisionDraft,
} from "../../records/index.js";
import { LeaseLostError, leaseLost, StoreConflictError } from "../errors.js";
import { DECISION_COLUMNS, type DecisionHeadRow, decisionHead, decisionRow } from "../sql/index.js";
import type { Fence } from "../types.js";
import { FENCE_HELD, fenceValues } from "./leases.js";
import type { Queryable } from "./sticky.js";

/** Serializes the appends to the operator chain of every process sharing the database. */
const OPERATOR_CHAIN_LOCK = 0x7261_6f70;

const INSERT_DECISION = `INSERT INTO operator_decisions (${DECISION_COLUMNS.join(", ")})
  VALUES ($1::bigint, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text)`;
const UPSERT_HEAD = `INSERT INTO operator_chain (id, head_digest, head_sequence, decisions)
  VALUES (1, $1::text, $2::bigint, $3::bigint) ON CONFLICT (id) DO UPDATE SET head_digest = excluded.head_digest,
  head_sequence = excluded.head_sequence, decisions = excluded.decisions`;

/**
 * Runs `effect` and appends `draft` to the operator chain in one transaction on one connection: the
 * chain's advisory lock orders concurrent deciders, so each decision chains from the one before it.
 * `effect` answers false to write nothing (the decision did not apply); the fence, when given, is
 * held (locked FOR SHARE) for the whole transaction.
 */
export async function withDecision(
  pool: Queryable,
  draft: OperatorDecisionDraft,
  fence: Fence | undefined,
  effect: (client: PoolClient) => Promise<boolean>,
): Promise<OperatorDecision | undefined> {
  const client = await pool.connect();
  const lost = (): void => undefined;
  client.on("error", lost);
  let failure: Error | undefined;
  try {
    await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
    await client.query("SELECT pg_advisory_xact_lock($1)", [OPERATOR_CHAIN_LOCK]);
    if (fence) {
      const held = await client.query(`${FENCE_HELD} FOR SHARE`, fenceValues(fence));
      if ((held.rowCount ?? 0) === 0) throw leaseLost(fence);
    }
    if (!(await effect(client))) {
      await client.query("ROLLBACK");
      return undefined;
    }
    const { rows } = await client.query<DecisionHeadRow>(
      "SELECT head_digest, head_sequence, decisions FROM operator_chain WHERE id = 1",
    );
    const decision = appendDecision(rows[0] ? decisionHead(rows[0]) : EMPTY_OPERATOR_CHAIN, draft);
    await client.query(
      INSERT_DECISION,
      DECISION_COLUMNS.map((c) => decisionRow(decision)[c]),
    );
    const head = headAfter(decision);
    await client.query(UPSERT_HEAD, [head.head_digest, head.head_sequence, head.decisions]);
    await client.query("COMMIT");
    return decision;
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.off("error", lost);
    client.release(
      failure instanceof StoreConflictError || failure instanceof LeaseLostError ? undefined : failure,
    );
  }
}
