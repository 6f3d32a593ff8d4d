import {
  type ChainAnchor,
  type ChainHead,
  chainDigest,
  chainGenesis,
  type HistoryEvent,
  UNANCHORED,
} from "../records/index.js";

/** How a history fails to verify: what the first mismatch looks like (docs/evidence-format.md). */
export const ChainBreak = {
  /** The event's content changed: the next event still chains from its stored digest. */
  edited: "edited",
  /** An event is missing: its sequence is absent, and its participant's chain does not go on from it. */
  removed: "removed",
  /** The event does not belong: its participant's next event chains from the one before it. */
  inserted: "inserted",
  /** The event is out of place: it chains neither from its predecessor nor into its successor. */
  reordered: "reordered",
  /** The event carries no `chain_digest` (written before chaining and never chained). */
  unchained: "unchained",
  /** The history ends before a participant's recorded chain head, disagrees with it, or has no head. */
  truncated: "truncated",
  /**
   * The chain head's anchor (`scenario_digest`, `manifest_digest`) was changed: the participant's
   * first event chains from another participant's anchor, or from none, not from its own.
   */
  anchor: "anchor",
} as const;
/** A kind of chain break. */
export type ChainBreak = (typeof ChainBreak)[keyof typeof ChainBreak];

/** The first event whose chain does not verify. */
export interface ChainFailure {
  readonly kind: ChainBreak;
  readonly participant_address: string;
  readonly sequence: number;
  /** One sentence for a person. */
  readonly detail: string;
}

/** The outcome of recomputing every chain. */
export interface ChainReport {
  readonly ok: boolean;
  readonly events: number;
  readonly participants: number;
  /** Participants whose chains a schema step computed over history written before chaining. */
  readonly backfilled: number;
  /** Each participant's last `chain_digest`, by participant (bytewise). */
  readonly heads: Readonly<Record<string, string>>;
  readonly failure?: ChainFailure;
}

interface Pending {
  readonly event: HistoryEvent;
  readonly previous: string;
  /** The digest its content chains to from `previous`: its chain_digest, had only that been changed. */
  readonly computed: string;
  readonly missing: number | undefined;
  /** Whether it is its participant's first event: its predecessor is the chain's genesis. */
  readonly first: boolean;
}

interface Chain {
  digest: string;
  sequence: number;
  events: number;
}

/**
 * Recomputes every participant's chain over events read in commit order, one at a time: memory holds
 * one digest per participant and at most one suspect event, whatever the history's length. `heads`
 * are the chains as the store or bundle records them: their anchors start the chains, and their last
 * digests catch a history cut short.
 */
export class ChainVerifier {
  readonly #anchors = new Map<string, ChainHead>();
  readonly #chains = new Map<string, Chain>();
  #events = 0;
  #lastSequence = 0;
  /** The first missing sequence not yet explained. */
  #gap: number | undefined;
  #pending: Pending | undefined;
  #failure: ChainFailure | undefined;
  /** A missing sequence its participant's chain skipped, failing as removed unless the next event brings it late. */
  #unexplainedGap: ChainFailure | undefined;

  /** False when the events are one participant's only: its sequences skip the others', so gaps are no sign. */
  readonly #gaps: boolean;

  constructor(heads: readonly ChainHead[], options: { readonly gaps?: boolean } = {}) {
    for (const head of heads) this.#anchors.set(head.participant_address, head);
    this.#gaps = options.gaps ?? true;
  }

  /** Takes the next event in commit order; false once the first failure is known (stop reading). */
  add(event: HistoryEvent): boolean {
    if (this.#failure !== undefined) return false;
    this.#events += 1;
    if (this.#unexplainedGap !== undefined && !(this.#gaps && event.sequence <= this.#lastSequence)) {
      this.#fail(this.#unexplainedGap);
      return false;
    }
    if (event.sequence < 1) {
      // A store numbers its history from 1: a row before it was put there.
      this.#fail({
        kind: ChainBreak.inserted,
        participant_address: event.participant_address,
        sequence: event.sequence,
        detail: "the event lies before the history's first sequence (1)",
      });
      return false;
    }
    if (this.#gaps && event.sequence <= this.#lastSequence) {
      // Only a bundle's lines can go back (a store reads in sequence order): the one open gap filled
      // late is a line moved; any other sequence was read already, so the line is a repeat.
      const moved = event.sequence === this.#gap;
      this.#fail({
        kind: moved ? ChainBreak.reordered : ChainBreak.inserted,
        participant_address: event.participant_address,
        sequence: event.sequence,
        detail: moved
          ? `it comes after sequence ${this.#lastSequence}: the history is out of commit order`
          : `sequence ${event.sequence} was read already (the last read was ${this.#lastSequence}): the event is repeated or put in`,
      });
      return false;
    }
    if (this.#gaps && event.sequence !== this.#lastSequence + 1 && this.#gap === undefined)
      this.#gap = this.#lastSequence + 1;
    this.#lastSequence = event.sequence;
    const participant = event.participant_address;
    const chain = this.#chains.get(participant);
    const previous = chain?.digest ?? this.#genesis(participant);
    const pending = this.#pending;
    if (pending !== undefined && pending.event.participant_address === participant) {
      this.#fail(this.#anchorOr(pending, this.#judge(pending, event)));
      return false;
    }
    if (event.chain_digest === undefined) {
      this.#fail({
        kind: ChainBreak.unchained,
        participant_address: participant,
        sequence: event.sequence,
        detail: "the event carries no chain_digest",
      });
      return false;
    }
    const digest = digestOf(previous, event);
    if (digest === undefined) {
      this.#fail({
        kind: ChainBreak.edited,
        participant_address: participant,
        sequence: event.sequence,
        detail: UNREPRESENTABLE,
      });
      return false;
    }
    const moved = digest === event.chain_digest ? undefined : this.#movedFrom(event);
    if (moved !== undefined) {
      this.#fail({
        kind: ChainBreak.edited,
        participant_address: participant,
        sequence: event.sequence,
        detail: `its participant was changed: it was sealed in participant ${moved}'s chain, as that participant's next event`,
      });
      return false;
    }
    if (digest !== event.chain_digest && chain === undefined && !this.#anchors.has(participant)) {
      // Without its head the chain's anchor is unknown: say what is missing, not that the event changed.
      this.#fail({
        kind: ChainBreak.truncated,
        participant_address: participant,
        sequence: event.sequence,
        detail: NO_HEAD,
      });
      return false;
    }
    if (digest !== event.chain_digest) {
      if (this.#gap !== undefined) {
        // Judged by the next event: in a bundle it may bring the missing sequence late (reordered).
        this.#unexplainedGap = removed(participant, this.#gap, event.sequence);
        return true;
      }
      // Judged by the participant's next event, or by its recorded head at the end.
      if (pending === undefined)
        this.#pending = { event, previous, computed: digest, missing: this.#gap, first: chain === undefined };
    }
    this.#chains.set(participant, {
      digest: event.chain_digest,
      sequence: event.sequence,
      events: (chain?.events ?? 0) + 1,
    });
    return true;
  }

  /** The report once every event was added. */
  finish(): ChainReport {
    if (this.#unexplainedGap !== undefined) this.#fail(this.#unexplainedGap);
    if (this.#failure === undefined && this.#pending !== undefined)
      this.#fail(this.#anchorOr(this.#pending, this.#judgeAtEnd(this.#pending)));
    if (this.#failure === undefined) this.#checkHeads();
    const heads: Record<string, string> = {};
    for (const p of [...this.#chains.keys()].sort(bytewise)) heads[p] = (this.#chains.get(p) as Chain).digest;
    const backfilled = [...this.#anchors.values()].filter((h) => h.backfilled_at !== null).length;
    return {
      ok: this.#failure === undefined,
      events: this.#events,
      participants: this.#chains.size,
      backfilled,
      heads,
      ...(this.#failure ? { failure: this.#failure } : {}),
    };
  }

  #genesis(participant: string): string {
    return chainGenesis(participant, this.#anchors.get(participant) ?? UNANCHORED);
  }

  #fail(failure: ChainFailure): void {
    this.#failure ??= failure;
  }

  /**
   * The participant (other than its own) whose chain the event was sealed in, as that participant's
   * next event: an event whose participant_address was changed. Checked only for an event that does
   * not chain, once per participant: a failure's cost, never a verified history's.
   */
  #movedFrom(event: HistoryEvent): string | undefined {
    const others = new Set([...this.#chains.keys(), ...this.#anchors.keys()]);
    others.delete(event.participant_address);
    for (const other of [...others].sort(bytewise)) {
      const previous = this.#chains.get(other)?.digest ?? this.#genesis(other);
      // Its address replaced wherever the event names it: a store may keep every mention in one column.
      if (
        digestOf(previous, { ...event, participant_address: other }) === event.chain_digest ||
        digestOf(previous, renamed(event, event.participant_address, other) as object) === event.chain_digest
      )
        return other;
    }
    return undefined;
  }

  /**
   * A participant's first event judged edited (its successor or head still holds its digest) may be
   * intact under a changed head anchor: it then chains from another anchor (another head's, or
   * none), which names the head; when no anchor explains it, the detail says both are possible.
   */
  #anchorOr(suspect: Pending, failure: ChainFailure): ChainFailure {
    if (!suspect.first || failure.kind !== ChainBreak.edited || failure.detail !== EDITED) return failure;
    const { event } = suspect;
    const head = this.#anchors.get(event.participant_address);
    if (head === undefined) return failure;
    const anchors = new Map<string, ChainAnchor>([["none", UNANCHORED]]);
    for (const other of [...this.#anchors.values()].sort((a, b) =>
      bytewise(a.participant_address, b.participant_address),
    ))
      if (other.participant_address !== head.participant_address)
        anchors.set(`participant ${other.participant_address}'s`, other);
    const named = `scenario_digest ${head.scenario_digest}, manifest_digest ${head.manifest_digest}`;
    for (const [whose, anchor] of anchors) {
      if (anchor.scenario_digest === head.scenario_digest && anchor.manifest_digest === head.manifest_digest)
        continue;
      const genesis = chainGenesis(event.participant_address, anchor);
      if (digestOf(genesis, event) === event.chain_digest)
        return {
          ...failure,
          kind: ChainBreak.anchor,
          detail: `the chain head's anchor was changed: its first event was sealed from ${whose === "none" ? "no anchor" : `${whose} anchor`} (scenario_digest ${anchor.scenario_digest}, manifest_digest ${anchor.manifest_digest}), the head names ${named}`,
        };
    }
    return {
      ...failure,
      detail: `${EDITED}, or its chain head's anchor (${named}) was changed: a chain's first event cannot tell which`,
    };
  }

  /** The suspect's kind, from the participant's next event. */
  #judge(suspect: Pending, next: HistoryEvent): ChainFailure {
    const { event, previous, computed } = suspect;
    const at = { participant_address: event.participant_address, sequence: event.sequence };
    if (next.chain_digest !== undefined && event.chain_digest !== undefined) {
      if (digestOf(event.chain_digest, next) === next.chain_digest)
        return { ...at, kind: ChainBreak.edited, detail: EDITED };
      // Its content still chains into the next event: only its chain_digest value was changed.
      if (digestOf(computed, next) === next.chain_digest)
        return { ...at, kind: ChainBreak.edited, detail: EDITED_DIGEST };
      // Removed before it, the later events renumbered down: the next chains from it one sequence up.
      if (digestOf(event.chain_digest, { ...next, sequence: next.sequence + 1 }) === next.chain_digest)
        return {
          ...at,
          kind: ChainBreak.removed,
          detail:
            "an event of the participant before it was removed and the later events renumbered: it was sealed one sequence later",
        };
      // Swapped with the next: it was sealed after the next, at the next's sequence.
      if (digestOf(next.chain_digest, { ...event, sequence: next.sequence }) === event.chain_digest)
        return { ...at, kind: ChainBreak.reordered, detail: SWAPPED };
      // Inserted mid-history with the later events renumbered up: the next one is one sequence later.
      if (
        digestOf(previous, next) === next.chain_digest ||
        digestOf(previous, { ...next, sequence: next.sequence - 1 }) === next.chain_digest
      )
        return {
          ...at,
          kind: ChainBreak.inserted,
          detail: "the participant's next event chains from the event before it",
        };
    }
    return {
      ...at,
      kind: ChainBreak.reordered,
      detail: "it chains neither from the event before it nor into the next",
    };
  }

  /** The suspect's kind when no later event of its participant exists: its recorded head decides. */
  #judgeAtEnd(suspect: Pending): ChainFailure {
    const { event } = suspect;
    const at = { participant_address: event.participant_address, sequence: event.sequence };
    const head = this.#anchors.get(event.participant_address);
    if (head !== undefined && head.head_sequence < event.sequence)
      return {
        ...at,
        kind: ChainBreak.inserted,
        detail: `it comes after the recorded chain head (sequence ${head.head_sequence})`,
      };
    if (head !== undefined && head.head_digest === event.chain_digest)
      return { ...at, kind: ChainBreak.edited, detail: EDITED };
    if (head !== undefined && head.head_digest === suspect.computed)
      return { ...at, kind: ChainBreak.edited, detail: EDITED_DIGEST };
    return { ...at, kind: ChainBreak.reordered, detail: "it does not chain from the event before it" };
  }

  /** Every recorded head must be the last event read of its participant. */
  #checkHeads(): void {
    for (const head of [...this.#anchors.values()].sort((a, b) =>
      bytewise(a.participant_address, b.participant_address),
    )) {
      const chain = this.#chains.get(head.participant_address);
      if (
        chain !== undefined &&
        chain.digest === head.head_digest &&
        chain.sequence === head.head_sequence &&
        chain.events === head.events
      )
        continue;
      const gap = this.#gap;
      if (gap !== undefined && (chain === undefined || chain.sequence < head.head_sequence)) {
        this.#fail(removed(head.participant_address, gap, undefined));
        return;
      }
      this.#fail({
        kind:
          chain === undefined || chain.sequence < head.head_sequence
            ? ChainBreak.removed
            : ChainBreak.truncated,
        participant_address: head.participant_address,
        sequence: head.head_sequence,
        detail: `the recorded chain head is sequence ${head.head_sequence} (${head.head_digest}) of ${head.events} events, the history ends at ${chain ? `sequence ${chain.sequence} after ${chain.events}` : "no event"}`,
      });
      return;
    }
    // A chain with no recorded head could be cut short at its end unseen: every writer records one.
    for (const participant of [...this.#chains.keys()].sort(bytewise)) {
      if (this.#anchors.has(participant)) continue;
      const chain = this.#chains.get(participant) as Chain;
      this.#fail({
        kind: ChainBreak.truncated,
        participant_address: participant,
        sequence: chain.sequence,
        detail: NO_HEAD,
      });
      return;
    }
    if (this.#gap !== undefined) {
      this.#fail({
        kind: ChainBreak.removed,
        participant_address: "",
        sequence: this.#gap,
        detail: `sequence ${this.#gap} is missing (commit order is numbered without gaps)`,
      });
    }
  }
}

const EDITED = "its content differs from what its chain_digest sealed";

const SWAPPED = "it and the participant's next event swapped places: each was sealed at the other's";

const EDITED_DIGEST = "its chain_digest was changed: its content still chains from the event before it";

const NO_HEAD =
  "the participant has events but no recorded chain head (its anchor and end), so its chain cannot be checked";

/**
 * The deepest nesting of arrays and objects an event or decision may hold (docs/evidence-format.md):
 * far above what a run records (an MCP message is refused past 256 levels), far below what would
 * overflow the stack while its digest is computed.
 */
export const MAX_EVIDENCE_DEPTH = 1024;

/** Why an event or decision holding a value without RFC 8785 text fails: no writer could have sealed it. */
export const UNREPRESENTABLE = `evidence.unsealable: it holds a value RFC 8785 has no text for (a number beyond a double, say), or nests arrays and objects deeper than ${MAX_EVIDENCE_DEPTH} levels, which no writer seals: its content was changed`;

/** Whether a parsed value nests arrays and objects deeper than `limit`: iterative, so any depth is safe to ask about. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  // Two stacks side by side rather than a pair per value: this runs over every event a verify reads.
  const items: unknown[] = [value];
  const depths: number[] = [0];
  while (items.length > 0) {
    const item = items.pop();
    const depth = depths.pop() as number;
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > limit) return true;
    const children: readonly unknown[] = Array.isArray(item) ? item : Object.values(item);
    for (let i = 0; i < children.length; i += 1) {
      const child = children[i];
      // Only arrays and objects nest: leaves are not pushed.
      if (child === null || typeof child !== "object") continue;
      items.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

/**
 * `chainDigest`, or undefined when the value holds something RFC 8785 has no text for (JSON's
 * `1e400` parses to Infinity): such an event was never sealed, and is named, not thrown over.
 */
export function digestOf(previous: string, value: object): string | undefined {
  // Serializing recurses: a value nested past the bound would overflow the stack, uncoded.
  if (nestedDeeperThan(value, MAX_EVIDENCE_DEPTH)) return undefined;
  try {
    return chainDigest(previous, value);
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  }
}

function removed(participant: string, missing: number, next: number | undefined): ChainFailure {
  return {
    kind: ChainBreak.removed,
    participant_address: participant,
    sequence: missing,
    detail: `sequence ${missing} is missing, and the participant's chain does not go on ${next === undefined ? "to its recorded head" : `at sequence ${next}`}`,
  };
}

/** `value` with every string equal to `from` replaced by `to` (its depth was bounded when its digest was taken). */
function renamed(value: unknown, from: string, to: string): unknown {
  if (value === from) return to;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => renamed(item, from, to));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renamed(item, from, to)]));
}

function bytewise(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
