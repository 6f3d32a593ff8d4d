import type {
  OperatorDecisionDraft,
  PacingDeviationRecord,
  ParticipantServiceRecord,
} from "../../records/index.js";
import { PACING_DEVIATION_COLUMNS, pacingDeviationRow, SERVICE_COLUMNS, serviceRow } from "../sql/index.js";
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

const INSERT_PACING = `INSERT INTO pacing_deviations (${PACING_DEVIATION_COLUMNS.join(", ")})
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::bigint, $6::double precision, $7::double precision, $8::text)
  ON CONFLICT (participant_address, ref) DO NOTHING`;

/** Records a pacing deviation once per participant and ref; false when it was already recorded. */
export async function savePacingDeviation(pool: Queryable, record: PacingDeviationRecord): Promise<boolean> {
  const row = pacingDeviationRow(record);
  const values = PACING_DEVIATION_COLUMNS.map((column) => row[column]);
  const result = await pool.query({ name: "raes_insert_pacing", text: INSERT_PACING, values });
  return (result.rowCount ?? 0) > 0;
}
