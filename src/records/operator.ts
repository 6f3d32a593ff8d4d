import { chainDigest, jcsDigest } from "./chain.js";

/**
 * The operator's decisions, chained (docs/evidence-format.md, "Operator decisions"). Every decision a
 * person makes about a store (resolving an indeterminate tool action, resuming a participant, ...)
 * is appended, in the transaction that applies it, to one chain per store: its `chain_digest` is
 * `sha256:` and the lowercase hex SHA-256 of the previous decision's `chain_digest` (71 ASCII
 * characters) followed by the UTF-8 bytes of the decision's RFC 8785 JSON without `chain_digest`,
 * the digest rule of history events. The first decision chains from `OPERATOR_GENESIS`.
 */

/** What an operator decided. */
export const OperatorDecisionKind = {
  /** An indeterminate tool action resolved (`subject`: the tool action's id). */
  resolve: "resolve",
  /** A stopped participant's schedulers run again (`subject`: the participant's address). */
  resume: "resume",
  /** A shared clock paused (`subject`: the clock's address). */
  pause: "pause",
  /** A shared clock reset to a new segment (`subject`: the clock's address). */
  reset: "reset",
  /** A held tool call dispatched (`subject`: the tool action's id). */
  approve: "approve",
  /** A held tool call withheld (`subject`: the tool action's id). */
  deny: "deny",
  /** A participant's execution service started (`subject`: the participant's address; `raes control start`). */
  execution_start: "execution_start",
  /** A participant's execution service paused (`subject`: the participant's address). */
  execution_pause: "execution_pause",
  /** A paused execution service resumed (`subject`: the participant's address). */
  execution_resume: "execution_resume",
  /** A participant's execution service drained to quiescent (`subject`: the participant's address). */
  execution_drain: "execution_drain",
  /** A quiescent execution service reset to the next generation (`subject`: the participant's address). */
  execution_reset: "execution_reset",
  /** A quiescent execution service torn down for good (`subject`: the participant's address). */
  execution_teardown: "execution_teardown",
  /** A participant's first episode initialized (`subject`: the participant's address). */
  episode_initialize: "episode_initialize",
  /** A participant's live episode replaced by a new one (`subject`: the participant's address). */
  episode_reset: "episode_reset",
  /** A participant's terminated episode followed by a new one (`subject`: the participant's address). */
  episode_restart: "episode_restart",
  /** A participant's live episode terminated (`subject`: the participant's address). */
  episode_terminate: "episode_terminate",
  /**
   * A schedule allowed to run under an edited policy, which starts a new segment (`subject`: the
   * participant's address; `policy_address`, `previous_policy_digest` and `policy_digest` name the change).
   */
  policy_change: "policy_change",
} as const;
/** An operator decision's kind. */
export type OperatorDecisionKind = (typeof OperatorDecisionKind)[keyof typeof OperatorDecisionKind];

/** A decision before the store appends it: what, about what, by whom, why and when. */
export interface OperatorDecisionDraft {
  readonly kind: OperatorDecisionKind;
  /**
   * The operation id (resolve, approve, deny), participant address (resume, `execution_*`, `episode_*`)
   * or clock address (pause, reset).
   */
  readonly subject: string;
  /** Who decided: `--operator`, else `RAES_OPERATOR`, else `USER@HOST`. */
  readonly operator: string;
  /** Why, as the operator wrote it ("" when none). */
  readonly note: string;
  /** When, ISO 8601 UTC with microseconds. */
  readonly decided_at: string;
  /** `policy_change` only: the policy of the schedule that changed. */
  readonly policy_address?: string;
  /** `policy_change` only: RAES's digest of the policy the schedule ran under until then. */
  readonly previous_policy_digest?: string;
  /** `policy_change` only: RAES's digest of the policy it runs under from the new segment. */
  readonly policy_digest?: string;
  /** `resolve` only (from schema step 21): what the operator recorded, `effect_confirmed` or `effect_absent`. */
  readonly resolution?: string;
}

/** A NUL, or a lone surrogate (paired ones are one code point under the `u` flag). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what it finds.
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/**
 * The first member of a decision (or of the resolution record written with it) whose string holds a
 * NUL or a lone surrogate, or undefined: neither reads back from every store as the chain sealed it
 * (SQLite keeps text as UTF-8, PostgreSQL refuses NUL), so a store refuses such a decision.
 */
export function unstorableDecisionText(value: object): string | undefined {
  for (const [name, member] of Object.entries(value))
    if (typeof member === "string" && UNSTORABLE.test(member)) return name;
  return undefined;
}

/** The members only some decisions carry, in the order a decision is written with them. */
export const DECISION_DETAILS = [
  "policy_address",
  "previous_policy_digest",
  "policy_digest",
  "resolution",
] as const;

/** A decision as the store keeps it: its place in the operator chain and its digest. */
export interface OperatorDecision extends OperatorDecisionDraft {
  /** 1 for a store's first decision, then one more per decision, with no gap. */
  readonly sequence: number;
  readonly chain_digest: string;
}

/** The end of a store's operator chain: the genesis and 0 while it has no decision. */
export interface OperatorChainHead {
  readonly head_digest: string;
  readonly head_sequence: number;
  /** How many decisions the chain holds (equal to `head_sequence`). */
  readonly decisions: number;
}

/** The digest every store's operator chain starts from: `jcsDigest({chain: "raes-ts/operator-decisions"})`. */
export const OPERATOR_GENESIS = jcsDigest({ chain: "raes-ts/operator-decisions" });

/** A store's operator chain while it holds no decision. */
export const EMPTY_OPERATOR_CHAIN: OperatorChainHead = {
  head_digest: OPERATOR_GENESIS,
  head_sequence: 0,
  decisions: 0,
};

/** The decision `draft` appended after `head`, with its sequence and digest. */
export function appendDecision(head: OperatorChainHead, draft: OperatorDecisionDraft): OperatorDecision {
  const unsigned = {
    kind: draft.kind,
    subject: draft.subject,
    operator: draft.operator,
    note: draft.note,
    decided_at: draft.decided_at,
    ...detailsOf(draft),
    sequence: head.head_sequence + 1,
  };
  return { ...unsigned, chain_digest: chainDigest(head.head_digest, unsigned) };
}

/** The members of `DECISION_DETAILS` the draft carries (absent ones stay absent: older digests hold). */
function detailsOf(
  draft: OperatorDecisionDraft,
): Partial<Pick<OperatorDecisionDraft, (typeof DECISION_DETAILS)[number]>> {
  const details: Record<string, string> = {};
  for (const name of DECISION_DETAILS) {
    const value = draft[name];
    if (value !== undefined) details[name] = value;
  }
  return details;
}

/** The head after `decision`. */
export function headAfter(decision: OperatorDecision): OperatorChainHead {
  return {
    head_digest: decision.chain_digest,
    head_sequence: decision.sequence,
    decisions: decision.sequence,
  };
}
