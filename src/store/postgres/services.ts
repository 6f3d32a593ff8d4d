import type { OperatorDecisionDraft, ParticipantServiceRecord } from "../../records/index.js";
import { SERVICE_COLUMNS, serviceRow } from "../sql/index.js";
import { withDecision } from "./decisions.js";
import type { Queryable } from "./sticky.js";

const INSERT_SERVICE = `INSERT INTO participant_services (${SERVICE_COLUMNS.join(", ")})
  VALUES ($1::text, $2::bigint, $3::text, $4::text, $5::bigint, $6::text, $7::text, $8::text) ON CONFLICT (participant_address) DO NOTHING`;
const UPDATE_SERVICE = `UPDATE participant_services SET revision = $2::bigint, service = $3::text, control_actions = $4::text,
  clock_generation = $5::bigint, episode = $6::text, episode_history = $7::text, updated_at = $8::text WHERE participant_address = $1::text AND revision = $2::bigint - 1`;

/**
 * Writes a participant's service record over the revision before it (inserts revision 1 when absent),
 * with `decision` appended to the operator chain in the same transaction; false when another write came first.
 */
export async function saveService(
  pool: Queryable,
  record: ParticipantServiceRecord,
  decision: OperatorDecisionDraft | undefined,
): Promise<boolean> {
  const row = serviceRow(record);
  const values = SERVICE_COLUMNS.map((column) => row[column]);
  const text = record.revision === 1 ? INSERT_SERVICE : UPDATE_SERVICE;
  const name = record.revision === 1 ? "raes_insert_service" : "raes_update_service";
  if (decision === undefined) {
    const result = await pool.query({ name, text, values });
    return (result.rowCount ?? 0) > 0;
  }
  const chained = await withDecision(pool, decision, undefined, async (client) => {
    const result = await client.query({ name, text, values });
    return (result.rowCount ?? 0) > 0;
  });
  return chained !== undefined;
}
