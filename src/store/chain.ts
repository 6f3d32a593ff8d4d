import {
  type CanonicalCache,
  type ChainAnchor,
  type ChainHead,
  chainDigest,
  chainGenesis,
  type HistoryEvent,
  UNANCHORED,
} from "../records/index.js";

/**
 * Links the events one transaction appends to their participants' chains (docs/reference/evidence.md):
 * each event's `chain_digest` from its participant's head, read once per transaction from the store
 * and then kept here, so several events of one participant in one commit chain to each other.
 */
export class ChainLinker {
  readonly #read: (participantAddress: string) => ChainHead | undefined;
  readonly #heads = new Map<string, ChainHead>();
  /** The objects this transaction's events share, each written once (a triple's contexts). */
  readonly #texts: CanonicalCache = new Map();

  /** `read` answers a participant's stored head inside the transaction. */
  constructor(read: (participantAddress: string) => ChainHead | undefined) {
    this.#read = read;
  }

  /** The `chain_digest` of `event` (committed: its sequence assigned), and its participant's new head. */
  link(event: HistoryEvent, anchor: ChainAnchor = UNANCHORED): string {
    const participant = event.participant_address;
    const head = this.#heads.get(participant) ?? this.#read(participant);
    const previous = head?.head_digest ?? chainGenesis(participant, anchor);
    const digest = chainDigest(previous, event, this.#texts);
    this.#heads.set(participant, {
      participant_address: participant,
      scenario_digest: head ? head.scenario_digest : anchor.scenario_digest,
      manifest_digest: head ? head.manifest_digest : anchor.manifest_digest,
      head_digest: digest,
      head_sequence: event.sequence,
      events: (head?.events ?? 0) + 1,
      backfilled_at: head?.backfilled_at ?? null,
    });
    return digest;
  }

  /** Every head this transaction moved, to write back with its events. */
  heads(): readonly ChainHead[] {
    return [...this.#heads.values()];
  }
}
