import type { StoreReport } from "../../../evidence/index.js";

/**
 * The one line naming a store's first failure, as `raes verify --store` prints it and `raes export`
 * refuses with it (docs/evidence-format.md); undefined when the store verifies.
 */
export function storeFailureLine(where: string, report: StoreReport): string | undefined {
  const f = report.failure;
  if (f !== undefined) {
    const who = f.participant_address === "" ? "" : `participant ${f.participant_address}, `;
    return `${where}: chain broken: ${f.kind} event: ${who}sequence ${f.sequence}: ${f.detail}`;
  }
  const o = report.operator.failure;
  if (o !== undefined)
    return `${where}: operator chain broken: ${o.kind} decision: sequence ${o.sequence}: ${o.detail}`;
  const r = report.resolutions?.failure;
  if (r !== undefined)
    return `${where}: operation record does not match the operator chain: operation ${r.id}: ${r.detail}`;
  return undefined;
}
