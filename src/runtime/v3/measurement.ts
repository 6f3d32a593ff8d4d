import type { V3Plan } from "./ledger.js";

/** What the native runtime must measure for one budget of a v3 action (RAES's measurement requirement). */
export interface ResourceMeasurementRequirement {
  /** RAES's budget state ref: `<policy address>.resource-budget-state.<budget id>`. */
  readonly budgetStateRef: string;
  readonly budgetId: string;
  readonly resourceKind: string;
  readonly unit: string;
  readonly meterProfileRef: string;
  /** The reserved quantity: the measurement may not exceed it. */
  readonly reserved: number;
}

/** One measured quantity a v3 native action returns (RAES's `ParticipantResourceMeasurement`). */
export interface ParticipantResourceMeasurement {
  readonly budgetStateRef: string;
  /** The action instance id of the request. */
  readonly operationId: string;
  readonly executionGeneration: number;
  readonly resourceKind: string;
  readonly unit: string;
  readonly meterProfileRef: string;
  readonly measured: number;
  /** At least one, unique. */
  readonly evidenceRefs: readonly string[];
}

/** RAES's codes for a measurement vector it does not commit. */
export const MeasurementCode = {
  /** The vector is missing, incomplete, has foreign budgets, or names another operation, generation, kind, unit or meter. */
  untrusted: "runtime.participant-resource-measurement-untrusted",
  /** A quantity is negative, above its reservation, or the vector carries no evidence. */
  invalid: "runtime.participant-resource-measurement-invalid",
} as const;
/** A measurement code. */
export type MeasurementCode = (typeof MeasurementCode)[keyof typeof MeasurementCode];

/** RAES's budget state ref of a policy's budget. */
export function budgetStateRef(policyAddress: string, budgetId: string): string {
  return `${policyAddress}.resource-budget-state.${budgetId}`;
}

/** The measurement requirements of a v3 policy's actions, one per budget in budget-id order. */
export function measurementRequirements(plan: V3Plan): ResourceMeasurementRequirement[] {
  return plan.budgets.map(({ demand }) => ({
    budgetStateRef: budgetStateRef(plan.policyAddress, demand.budgetId),
    budgetId: demand.budgetId,
    resourceKind: demand.resourceKind,
    unit: demand.unit,
    meterProfileRef: demand.meterProfileRef,
    reserved: demand.reservation,
  }));
}

/** A checked measurement vector: the measured quantities by budget id, or RAES's reason to release. */
export type MeasurementCheck =
  | { readonly ok: true; readonly measured: Record<string, number>; readonly evidenceRefs: string[] }
  | { readonly ok: false; readonly code: MeasurementCode; readonly problem: string };

/**
 * Checks a result's measurement vector as RAES trusts one: exactly one measurement per reserved budget
 * (missing or foreign budgets are untrusted), each naming the request's operation and generation and the
 * budget's kind, unit and meter; each quantity an integer within [0, reserved]; evidence on each.
 */
export function checkMeasurements(
  value: unknown,
  requirements: readonly ResourceMeasurementRequirement[],
  operationId: string,
  generation: number,
): MeasurementCheck {
  const untrusted = (problem: string): MeasurementCheck => ({
    ok: false,
    code: MeasurementCode.untrusted,
    problem,
  });
  const invalid = (problem: string): MeasurementCheck => ({
    ok: false,
    code: MeasurementCode.invalid,
    problem,
  });
  if (!Array.isArray(value)) return untrusted("the result carries no resourceMeasurements list");
  if (value.length > requirements.length) return untrusted("the result measures budgets it did not reserve");
  const byRef = new Map(requirements.map((r) => [r.budgetStateRef, r]));
  const seen = new Map<string, Record<string, unknown>>();
  for (const item of value as unknown[]) {
    if (item === null || typeof item !== "object") return untrusted("a measurement is not an object");
    const m = item as Record<string, unknown>;
    const ref = m.budgetStateRef;
    if (typeof ref !== "string" || !byRef.has(ref))
      return untrusted(`measurement of a foreign budget ${String(ref)}`);
    if (seen.has(ref)) return untrusted(`budget ${ref} is measured twice`);
    seen.set(ref, m);
  }
  const measured: Record<string, number> = {};
  const evidence = new Set<string>();
  for (const r of requirements) {
    const m = seen.get(r.budgetStateRef);
    if (!m) return untrusted(`budget ${r.budgetId} is not measured`);
    if (m.operationId !== operationId)
      return untrusted(`measurement of ${r.budgetId} names another operation`);
    if (m.executionGeneration !== generation)
      return untrusted(`measurement of ${r.budgetId} is of generation ${String(m.executionGeneration)}`);
    if (m.resourceKind !== r.resourceKind || m.unit !== r.unit || m.meterProfileRef !== r.meterProfileRef)
      return untrusted(`measurement of ${r.budgetId} names another resource kind, unit or meter`);
    const q = m.measured;
    if (typeof q !== "number" || !Number.isSafeInteger(q) || q < 0 || q > r.reserved)
      return invalid(`measurement of ${r.budgetId} is ${String(q)}, outside [0, ${r.reserved}]`);
    const refs = m.evidenceRefs;
    if (!Array.isArray(refs) || refs.length === 0 || refs.some((e) => typeof e !== "string" || e === ""))
      return invalid(`measurement of ${r.budgetId} carries no evidence`);
    if (new Set(refs).size !== refs.length) return invalid(`measurement of ${r.budgetId} repeats evidence`);
    for (const e of refs as string[]) evidence.add(e);
    measured[r.budgetId] = q;
  }
  return { ok: true, measured, evidenceRefs: [...evidence] };
}
