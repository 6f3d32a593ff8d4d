import { OPERATOR_GENESIS, type OperatorChainHead, type OperatorDecision } from "../records/index.js";
import { ChainBreak, digestOf, UNREPRESENTABLE } from "./verify-chain.js";

/** The first operator decision that does not verify. */
export interface DecisionFailure {
  readonly kind: ChainBreak;
  readonly sequence: number;
  /** One sentence for a person. */
  readonly detail: string;
}

/** The outcome of recomputing the operator chain. */
export interface DecisionReport {
  readonly ok: boolean;
  readonly decisions: number;
  /** The last decision's `chain_digest` as read (the genesis when there is none). */
  readonly head: string;
  readonly failure?: DecisionFailure;
}

/**
 * Recomputes the operator chain (docs/evidence-format.md) over decisions read in order, one at a
 * time: memory holds the last digest and at most one suspect decision. `recorded` is the head as the
 * store or bundle records it, which catches a chain cut short or extended.
 */
export class DecisionVerifier {
  readonly #recorded: OperatorChainHead;
  #digest = OPERATOR_GENESIS;
  #sequence = 0;
  #decisions = 0;
  #suspect:
    | { readonly decision: OperatorDecision; readonly previous: string; readonly computed: string }
    | undefined;
  #failure: DecisionFailure | undefined;
  /** A skipped sequence, judged by the next decision (or the end): removed, or a line moved. */
  #gap: { readonly missing: number; readonly read: number } | undefined;

  constructor(recorded: OperatorChainHead) {
    this.#recorded = recorded;
  }

  /** Takes the next decision in order; false once the first failure is known (stop reading). */
  add(decision: OperatorDecision): boolean {
    if (this.#failure !== undefined) return false;
    this.#decisions += 1;
    const previous = this.#digest;
    const suspect = this.#suspect;
    if (suspect !== undefined) {
      this.#failure = judge(suspect.decision, suspect.previous, suspect.computed, decision);
      return false;
    }
    const gap = this.#gap;
    if (gap !== undefined) {
      // The decision after a skipped sequence: the skipped one brought late is a line moved (only a
      // bundle's lines can go back), any other leaves it missing.
      this.#failure =
        decision.sequence === gap.missing
          ? {
              kind: ChainBreak.reordered,
              sequence: decision.sequence,
              detail: `it comes after decision ${gap.read}: the decisions are out of order`,
            }
          : {
              kind: ChainBreak.removed,
              sequence: gap.missing,
              detail: `decision ${gap.missing} was expected, decision ${gap.read} was read (decisions are numbered without gaps)`,
            };
      return false;
    }
    if (decision.sequence <= this.#sequence) {
      this.#failure = {
        kind: ChainBreak.inserted,
        sequence: decision.sequence,
        detail: `decision ${decision.sequence} was read already (the last read was ${this.#sequence}): the decision is repeated or put in`,
      };
      return false;
    }
    if (decision.sequence !== this.#sequence + 1) {
      // Judged by the next decision, as a history's gap is: it may bring the missing one late.
      this.#gap = { missing: this.#sequence + 1, read: decision.sequence };
      return true;
    }
    const digest = digestOf(previous, decision);
    if (digest === undefined) {
      this.#failure = { kind: ChainBreak.edited, sequence: decision.sequence, detail: UNREPRESENTABLE };
      return false;
    }
    if (typeof decision.chain_digest !== "string" || digest !== decision.chain_digest)
      this.#suspect = { decision, previous, computed: digest };
    this.#digest = decision.chain_digest;
    this.#sequence = decision.sequence;
    return true;
  }

  /** The report once every decision was added. */
  finish(): DecisionReport {
    if (this.#failure === undefined && this.#gap !== undefined)
      this.#failure = {
        kind: ChainBreak.removed,
        sequence: this.#gap.missing,
        detail: `decision ${this.#gap.missing} was expected, decision ${this.#gap.read} was read (decisions are numbered without gaps)`,
      };
    if (this.#failure === undefined && this.#suspect !== undefined) {
      const { decision } = this.#suspect;
      this.#failure =
        this.#recorded.head_sequence < decision.sequence
          ? {
              kind: ChainBreak.inserted,
              sequence: decision.sequence,
              detail: `it comes after the recorded operator chain head (decision ${this.#recorded.head_sequence})`,
            }
          : this.#recorded.head_digest === decision.chain_digest
            ? { kind: ChainBreak.edited, sequence: decision.sequence, detail: EDITED }
            : this.#recorded.head_digest === this.#suspect.computed
              ? { kind: ChainBreak.edited, sequence: decision.sequence, detail: EDITED_DIGEST }
              : { kind: ChainBreak.reordered, sequence: decision.sequence, detail: NOT_CHAINED };
    }
    if (
      this.#failure === undefined &&
      (this.#recorded.head_digest !== this.#digest || this.#recorded.head_sequence !== this.#sequence)
    ) {
      const short = this.#sequence < this.#recorded.head_sequence;
      this.#failure = {
        kind: short ? ChainBreak.removed : ChainBreak.truncated,
        sequence: short ? this.#sequence + 1 : this.#recorded.head_sequence,
        detail: `the recorded operator chain head is decision ${this.#recorded.head_sequence} (${this.#recorded.head_digest}), the decisions end at ${this.#sequence === 0 ? "none" : `decision ${this.#sequence}`}`,
      };
    }
    if (this.#failure === undefined && this.#recorded.decisions !== this.#sequence)
      // The count is the head's third member: without this, editing it would go unseen.
      this.#failure = {
        kind: ChainBreak.truncated,
        sequence: this.#recorded.head_sequence,
        detail: `the recorded operator chain head counts ${this.#recorded.decisions} decisions, the chain holds ${this.#sequence}`,
      };
    return {
      ok: this.#failure === undefined,
      decisions: this.#decisions,
      head: this.#digest,
      ...(this.#failure ? { failure: this.#failure } : {}),
    };
  }
}

const EDITED = "its content differs from what its chain_digest sealed";
const NOT_CHAINED = "it does not chain from the decision before it";
const EDITED_DIGEST = "its chain_digest was changed: its content still chains from the decision before it";

/** The suspect's kind, from the decision after it. */
function judge(
  suspect: OperatorDecision,
  previous: string,
  computed: string,
  next: OperatorDecision,
): DecisionFailure {
  const sequence = suspect.sequence;
  if (digestOf(suspect.chain_digest, next) === next.chain_digest)
    return { kind: ChainBreak.edited, sequence, detail: EDITED };
  if (digestOf(computed, next) === next.chain_digest)
    return { kind: ChainBreak.edited, sequence, detail: EDITED_DIGEST };
  if (digestOf(suspect.chain_digest, { ...next, sequence: next.sequence + 1 }) === next.chain_digest)
    return {
      kind: ChainBreak.removed,
      sequence,
      detail:
        "a decision before it was removed and the later ones renumbered: it was sealed one sequence later",
    };
  if (digestOf(next.chain_digest, { ...suspect, sequence: next.sequence }) === suspect.chain_digest)
    return {
      kind: ChainBreak.reordered,
      sequence,
      detail: "it and the next decision swapped places: each was sealed at the other's",
    };
  if (
    digestOf(previous, next) === next.chain_digest ||
    digestOf(previous, { ...next, sequence: next.sequence - 1 }) === next.chain_digest
  )
    return {
      kind: ChainBreak.inserted,
      sequence,
      detail: "the next decision chains from the decision before it",
    };
  return { kind: ChainBreak.reordered, sequence, detail: NOT_CHAINED };
}
