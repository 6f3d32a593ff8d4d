import { storeFailure, verifyParticipantChain, verifyStore } from "../evidence/index.js";
import type { ChainHead, OperatorChainHead } from "../records/index.js";
import { type ControlPlaneStore, StoreUnavailableError } from "../store/index.js";

/** Whether a chain verifies, as the console shows it. */
export const ChainState = {
  /** Not recomputed yet since the console started. */
  checking: "checking",
  /** Recomputed from its first event to its recorded head: every digest matches. */
  verified: "verified",
  /** A digest does not match: `failure` names the first event (participant and sequence) or decision. */
  broken: "broken",
  /**
   * The last check could not read the chain (the store away, or damaged): `failure` holds the store's
   * error. The next check tries again.
   */
  unreadable: "unreadable",
} as const;
/** A chain state. */
export type ChainState = (typeof ChainState)[keyof typeof ChainState];

/** One chain's status on the page. */
export interface ChainView {
  readonly state: ChainState;
  /** Events (a participant's chain) or decisions (the operator chain) recomputed. */
  readonly count: number;
  /** The first thing that does not verify, for a person: `edited event at sequence 7: …`. */
  readonly failure?: string;
  /** The participant and sequence of the first event that does not verify. */
  readonly at?: { readonly participant: string; readonly sequence: number };
}

const CHECKING: ChainView = { state: ChainState.checking, count: 0 };

/** How often chains are recomputed at most, and at least while someone watches. */
export interface ChainWatchTiming {
  /** Never start a check sooner than this after the last one started (ms). */
  readonly minIntervalMs: number;
  /** Recheck this often even when no head moved (ms): an edit in place moves no head. */
  readonly recheckMs: number;
}

/**
 * Recomputes every participant's chain, and the store as `raes verify --store` does (the operator chain
 * and the resolutions with it), in the background, when a head moved
 * (at most once per `minIntervalMs`, and never sooner than ten times the last check's duration, so a
 * long history costs at most a tenth of a core) and every `recheckMs`: one check at a time, whatever
 * the number of watchers, and none while nobody watches (the hub calls `observe` only then).
 */
export class ChainWatch {
  readonly #store: ControlPlaneStore;
  readonly #timing: ChainWatchTiming;
  readonly #now: () => number;
  #participants = new Map<string, ChainView>();
  #decisions: ChainView = CHECKING;
  #verdict: ChainView = CHECKING;
  #checkedKey: string | undefined;
  #startedAt = Number.NEGATIVE_INFINITY;
  /** How long the last check took (ms): the next waits ten times that, so checking takes at most a tenth of the time. */
  #lastDuration = 0;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(store: ControlPlaneStore, timing: ChainWatchTiming, now: () => number = Date.now) {
    this.#store = store;
    this.#timing = timing;
    this.#now = now;
  }

  /** Takes the heads just read; starts a check when they moved (or a recheck is due) and none runs. */
  observe(heads: readonly ChainHead[], decisionHead: OperatorChainHead): void {
    if (this.#running !== undefined || this.#closed) return;
    const key = JSON.stringify([
      heads.map((h) => [h.participant_address, h.head_sequence, h.head_digest]),
      decisionHead.head_sequence,
      decisionHead.head_digest,
    ]);
    const since = this.#now() - this.#startedAt;
    const moved = key !== this.#checkedKey;
    const gap = Math.max(this.#timing.minIntervalMs, 10 * this.#lastDuration);
    if ((moved && since < gap) || (!moved && since < Math.max(gap, this.#timing.recheckMs))) return;
    const started = this.#now();
    this.#startedAt = started;
    let failed = false;
    this.#running = this.#check(
      heads.map((h) => h.participant_address),
      key,
    )
      // A failed read shows on every badge, so a store that cannot be checked never looks checked;
      // the next poll tries again.
      .catch((error: unknown) => {
        failed = true;
        this.#failed(
          heads.map((h) => h.participant_address),
          error,
        );
      })
      .finally(() => {
        // A failed check's time (a timeout, say) says nothing of how long a check takes: no wait for it.
        this.#lastDuration = failed ? 0 : this.#now() - started;
        this.#running = undefined;
      });
  }

  /** Waits for a check in progress (tests, and closing). */
  async settled(): Promise<void> {
    await this.#running;
  }

  /** Stops starting checks; the one running ends on its own. */
  close(): void {
    this.#closed = true;
  }

  /** A participant's chain. */
  participant(address: string): ChainView {
    return this.#participants.get(address) ?? CHECKING;
  }

  /** The operator chain. */
  decisions(): ChainView {
    return this.#decisions;
  }

  /**
   * The whole store as `raes verify --store` checks it (every history chain in commit order, the
   * operator chain, each resolution against its decision): its verdict and first failure, in its words.
   */
  store(): ChainView {
    return this.#verdict;
  }

  /**
   * A check that failed: every chain could not be checked. The store's verdict is broken, as `raes
   * verify --store` exits 1, unless the store was only unavailable (away for a moment): a damaged
   * schema or an unreadable row is a finding, never an outage.
   */
  #failed(participants: readonly string[], error: unknown): void {
    const failure = error instanceof Error ? error.message : String(error);
    const view: ChainView = { state: ChainState.unreadable, count: 0, failure };
    this.#participants = new Map(participants.map((address) => [address, view]));
    this.#decisions = view;
    this.#verdict =
      error instanceof StoreUnavailableError ? view : { state: ChainState.broken, count: 0, failure };
    // The next poll checks again, whether or not a head moved.
    this.#checkedKey = undefined;
  }

  async #check(participants: readonly string[], key: string): Promise<void> {
    const found = new Map<string, ChainView>();
    for (const address of participants) {
      if (this.#closed) return;
      const report = await verifyParticipantChain(this.#store, address);
      const f = report.failure;
      found.set(
        address,
        f === undefined
          ? { state: ChainState.verified, count: report.events }
          : {
              state: ChainState.broken,
              count: report.events,
              failure: `${f.kind} event at sequence ${f.sequence}: ${f.detail}`,
              at: { participant: f.participant_address, sequence: f.sequence },
            },
      );
    }
    // The operator chain's view comes from the same check as the store's verdict: one read, one answer.
    const report = await verifyStore(this.#store);
    const g = report.operator.failure;
    this.#decisions =
      g === undefined
        ? { state: ChainState.verified, count: report.operator.decisions }
        : {
            state: ChainState.broken,
            count: report.operator.decisions,
            failure: `${g.kind} decision at sequence ${g.sequence}: ${g.detail}`,
          };
    const failure = storeFailure(report);
    const f = report.failure;
    this.#verdict =
      failure === undefined
        ? { state: ChainState.verified, count: report.events }
        : {
            state: ChainState.broken,
            count: report.events,
            failure,
            ...(f === undefined ? {} : { at: { participant: f.participant_address, sequence: f.sequence } }),
          };
    this.#participants = found;
    this.#checkedKey = key;
  }
}
