/**
 * A small reference model of participant-invocation-tool-actions/v1, written from docs/design.md §5
 * only; it shares no code with src/port. Where the spec leaves the order of two
 * refusals open, an answer lists every acceptable code.
 */

/** How a generated admit request differs from the valid base request. */
export type Variant = "base" | "wide" | "malformed" | "identity" | "generation" | "unbound" | "target";
/** The kinds of outcome a generated complete carries. */
export type OutcomeKind =
  | "succeeded"
  | "failed"
  | "partial_success"
  | "failed_declared_class"
  | "succeeded_with_evidence"
  | "foreign_point"
  | "hidden_evidence"
  | "undeclared_class"
  | "status_withheld";

/** One port call as the model sees it; `ordinal` names the target action `<invocation>:tool=<ordinal>`. */
export type Op =
  | { readonly type: "admit"; readonly call: string; readonly variant: Variant }
  | { readonly type: "dispatch"; readonly ordinal: number }
  | { readonly type: "complete"; readonly ordinal: number; readonly outcome: OutcomeKind }
  | { readonly type: "reportUnknown"; readonly ordinal: number; readonly withReason: boolean }
  | { readonly type: "cancel"; readonly ordinal: number };

export type Phase = "admitted" | "dispatched" | "settled";

/** One admitted action of the model. */
export interface ModelAction {
  readonly id: string;
  readonly call: string;
  readonly variant: Variant;
  readonly ordinal: number;
  phase: Phase;
  settlement?: string;
}

/** What the model answers: every acceptable code, and the change made when the call succeeds. */
export interface Answer {
  readonly codes: readonly string[];
  readonly apply: () => void;
}

export const VALID_VARIANTS: ReadonlySet<Variant> = new Set(["base", "wide"]);
const STATIC_REFUSAL: Partial<Record<Variant, string>> = {
  identity: "identity_mismatch",
  generation: "generation_mismatch",
  unbound: "affordance_unbound",
  target: "target_outside_binding",
};
const VALID_OUTCOME: Partial<Record<OutcomeKind, string>> = {
  succeeded: "succeeded",
  failed: "failed",
  partial_success: "partial_success",
  failed_declared_class: "failed",
  succeeded_with_evidence: "succeeded",
};

const only = (code: string, apply: () => void = () => undefined): Answer => ({ codes: [code], apply });

export class SpecModel {
  closed = false;
  readonly actions: ModelAction[] = [];

  constructor(
    readonly invocationId: string,
    readonly total: number,
    readonly concurrent: number,
  ) {}

  clone(): SpecModel {
    const copy = new SpecModel(this.invocationId, this.total, this.concurrent);
    copy.closed = this.closed;
    for (const a of this.actions) copy.actions.push({ ...a });
    return copy;
  }

  idOf(ordinal: number): string {
    return `${this.invocationId}:tool=${ordinal}`;
  }

  unsettled(): number {
    return this.actions.filter((a) => a.phase !== "settled").length;
  }

  answer(op: Op): Answer {
    if (op.type === "admit") return this.#admit(op.call, op.variant);
    if (this.closed) return only("invocation_closed");
    const action = this.actions.find((a) => a.ordinal === op.ordinal);
    if (op.type === "reportUnknown" && !op.withReason) {
      const otherwise = this.answer({ ...op, withReason: true }).codes.filter((c) => c !== "ok");
      return { codes: ["request_invalid", ...otherwise], apply: () => undefined };
    }
    if (op.type === "complete") return this.#complete(action, op.outcome);
    if (!action) return only("unknown_action");
    if (op.type === "dispatch") {
      return action.phase === "admitted"
        ? only("accepted", () => {
            action.phase = "dispatched";
          })
        : only("state_conflict");
    }
    if (op.type === "cancel") {
      return action.phase === "admitted"
        ? only("ok", () => settle(action, "withheld"))
        : only("state_conflict");
    }
    return action.phase === "dispatched"
      ? only("ok", () => settle(action, "indeterminate"))
      : only("state_conflict");
  }

  /** The invocation returns: undispatched actions are withheld, dispatched ones indeterminate. */
  close(): void {
    this.closed = true;
    for (const action of this.actions) {
      if (action.phase === "admitted") settle(action, "withheld");
      if (action.phase === "dispatched") settle(action, "indeterminate");
    }
  }

  #admit(call: string, variant: Variant): Answer {
    if (variant === "malformed") return only("request_invalid");
    if (this.closed) return only("invocation_closed");
    const prior = this.actions.find((a) => a.call === call);
    if (prior) return only(prior.variant === variant ? `admitted:${prior.id}` : "request_conflict");
    const refusal = STATIC_REFUSAL[variant];
    if (refusal) return only(refusal);
    if (this.actions.length >= this.total) return only("action_limit_exhausted");
    if (this.unsettled() >= this.concurrent) return only("concurrency_limit_exhausted");
    const ordinal = this.actions.length + 1;
    const id = this.idOf(ordinal);
    return only(`admitted:${id}`, () => {
      this.actions.push({ id, call, variant, ordinal, phase: "admitted" });
    });
  }

  #complete(action: ModelAction | undefined, outcome: OutcomeKind): Answer {
    const settlement = VALID_OUTCOME[outcome];
    if (!action)
      return {
        codes: settlement ? ["unknown_action"] : ["unknown_action", "outcome_invalid"],
        apply: () => {},
      };
    if (action.phase !== "dispatched") {
      return {
        codes: settlement ? ["state_conflict"] : ["state_conflict", "outcome_invalid"],
        apply: () => {},
      };
    }
    if (!settlement) return only("outcome_invalid");
    return only("ok", () => settle(action, settlement));
  }
}

function settle(action: ModelAction, settlement: string): void {
  action.phase = "settled";
  action.settlement = settlement;
}

/** Every order of a small list, for finding a serialisation that explains concurrent answers. */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}
