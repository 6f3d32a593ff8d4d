import type { ControlPlaneStore } from "../store/index.js";
import { decisionNote, decisionTime, operatorIdentity } from "./operator.js";
import { type Operation, OperatorDecisionKind, ToolActionResolution } from "./types.js";

/** Why an explicit resolution was refused. */
export const ResolutionRefusal = {
  /** No tool action has this id. */
  unknown_action: "resolution.unknown-action",
  /** The tool action is not indeterminate; only indeterminate actions need resolution. */
  not_indeterminate: "resolution.not-indeterminate",
  /** The tool action was already resolved; a resolution is recorded once. */
  already_resolved: "resolution.already-resolved",
  /** The resolution is not `effect_confirmed` or `effect_absent`, or the note is not a string. */
  invalid: "resolution.invalid",
} as const;
/** A resolution refusal code. */
export type ResolutionRefusal = (typeof ResolutionRefusal)[keyof typeof ResolutionRefusal];

/** A refused resolution; nothing was recorded. */
export class ResolutionError extends Error {
  readonly code: ResolutionRefusal;
  constructor(code: ResolutionRefusal, message: string) {
    super(message);
    this.name = "ResolutionError";
    this.code = code;
  }
}

/** The operator's decision about an indeterminate tool action. */
export interface ResolutionInput {
  readonly resolution: ToolActionResolution;
  readonly note?: string;
  /** Who decided; `operatorIdentity()` (RAES_OPERATOR, else USER@HOST) when absent. */
  readonly operator?: string;
}

/** Records an explicit resolution of an indeterminate tool action; never repeats the effect. */
export async function resolveToolAction(
  store: ControlPlaneStore,
  id: string,
  input: ResolutionInput,
  now: () => Date = () => new Date(),
): Promise<Operation> {
  const valid = Object.values(ToolActionResolution) as string[];
  if (!valid.includes(input.resolution) || (input.note !== undefined && typeof input.note !== "string")) {
    throw new ResolutionError(
      ResolutionRefusal.invalid,
      `resolution must be one of ${valid.join(", ")}, its note a string`,
    );
  }
  // A note is bounded and must read back as sealed, as every other decision's (operator.note-*).
  const note = decisionNote(input.note);
  const action = await store.getToolAction(id);
  if (!action) throw new ResolutionError(ResolutionRefusal.unknown_action, `no tool action ${id}`);
  if (action.settlement !== "indeterminate") {
    throw new ResolutionError(
      ResolutionRefusal.not_indeterminate,
      `${id} is ${action.settlement ?? action.phase}`,
    );
  }
  if (action.resolution)
    throw new ResolutionError(ResolutionRefusal.already_resolved, `${id} is already resolved`);
  const operator = operatorIdentity(input.operator);
  const resolvedAt = decisionTime(now());
  // The resolution and its operator decision are one transaction (docs/evidence-format.md).
  const recorded = await store.recordResolution(
    id,
    { resolution: input.resolution, note, resolvedAt, operator },
    {
      kind: OperatorDecisionKind.resolve,
      subject: id,
      operator,
      note,
      decided_at: resolvedAt,
      resolution: input.resolution,
    },
  );
  if (!recorded)
    throw new ResolutionError(ResolutionRefusal.already_resolved, `${id} was resolved concurrently`);
  const operation = await store.getOperation(id);
  if (!operation) throw new ResolutionError(ResolutionRefusal.unknown_action, `no operation ${id}`);
  return operation;
}
