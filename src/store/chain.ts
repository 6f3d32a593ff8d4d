import {
  type CanonicalCache,
  type ChainAnchor,
  type ChainHead,
  chainDigest,
  chainDigestAt,
  chainGenesis,
  type HistoryEvent,
  type HistoryEventDraft,
  UNANCHORED,
} from "../records/index.js";

/**
 * Links the events one transaction appends to their participants' chains (docs/evidence-format.md):
 * each event's `chain_digest` from its participant's head, read once per transaction from the store
 * and then kept here, so several events of one participant in one commit chain to each other.
 */
export class ChainLinker {
  readonly #read: (participantAddress: string) => ChainHead | undefined;
  readonly #heads = new Map<string, ChainHead>();
  /** The texts this transaction's events share, each written once (a triple's contexts); none kept when absent. */
  readonly #texts: CanonicalCache | undefined;

  /**
   * `read` answers a participant's stored head inside the transaction. `shared` (one commit's) keeps
   * the texts of the objects its events share; a linker that walks a whole history keeps none.
   */
  constructor(read: (participantAddress: string) => ChainHead | undefined, shared?: CanonicalCache) {
    this.#read = read;
    this.#texts = shared;
  }

  /** The `chain_digest` of `event` (committed: its sequence assigned), and its participant's new head. */
  link(event: HistoryEvent, anchor: ChainAnchor = UNANCHORED): string {
    const previous = this.#previous(event.participant_address, anchor);
    return this.#moved(
      event.participant_address,
      anchor,
      chainDigest(previous, event, this.#texts),
      event.sequence,
    );
  }

  /** `link({...draft, sequence}, anchor)` without building the committed event. */
  linkAt(draft: HistoryEventDraft, sequence: number, anchor: ChainAnchor = UNANCHORED): string {
    const previous = this.#previous(draft.participant_address, anchor);
    return this.#moved(
      draft.participant_address,
      anchor,
      chainDigestAt(previous, draft, sequence, this.#texts),
      sequence,
    );
  }

  /** The digest `participant`'s next event chains from: its head, or its genesis under `anchor`. */
  previous(participant: string, anchor: ChainAnchor = UNANCHORED): string {
    return this.#previous(participant, anchor);
  }

  /**
   * Moves `participant`'s head to `digest` at `sequence`: a digest computed elsewhere (another
   * thread) from `previous(participant, anchor)`, as `linkAt` would have.
   */
  adopt(participant: string, anchor: ChainAnchor, digest: string, sequence: number): string {
    return this.#moved(participant, anchor, digest, sequence);
  }

  /** Every head this transaction moved, to write back with its events. */
  heads(): readonly ChainHead[] {
    return [...this.#heads.values()];
  }

  #head(participant: string): ChainHead | undefined {
    return this.#heads.get(participant) ?? this.#read(participant);
  }

  #previous(participant: string, anchor: ChainAnchor): string {
    return this.#head(participant)?.head_digest ?? chainGenesis(participant, anchor);
  }

  #moved(participant: string, anchor: ChainAnchor, digest: string, sequence: number): string {
    const head = this.#head(participant);
    this.#heads.set(participant, {
      participant_address: participant,
      scenario_digest: head ? head.scenario_digest : anchor.scenario_digest,
      manifest_digest: head ? head.manifest_digest : anchor.manifest_digest,
      head_digest: digest,
      head_sequence: sequence,
      events: (head?.events ?? 0) + 1,
      backfilled_at: head?.backfilled_at ?? null,
    });
    return digest;
  }
}
