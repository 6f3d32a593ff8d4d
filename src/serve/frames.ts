import type { ControlPlaneStore } from "../store/index.js";
import { readTimelineInput, TIMELINE_CSP, type TimelineChain, timelineHtmlParts } from "../timeline/index.js";
import { ChainState, type ChainView } from "./chain.js";

/** The most events a participant's timeline frame shows: its latest, so the frame stays bounded. */
export const FRAME_EVENTS = 2000;

/** Rendered frames kept, newest first. */
const KEPT = 32;

/**
 * Renders at most waiting their turn (the one drawing included): a client that asks for many new
 * versions at once gets `serve.busy` past it, so the console's work stays bounded by this, never by
 * how fast requests arrive.
 */
export const MAX_WAITING_RENDERS = 8;

/** The timeline frame's policy: the timeline page's own, and framed by this console only. */
export const FRAME_CSP = `${TIMELINE_CSP}; base-uri 'none'; form-action 'none'; frame-ancestors 'self'`;

/**
 * The frame's badge: broken when the participant's chain is (named at its event), else when the store
 * fails as `raes verify --store` fails it (its failure line), so a frame never says verified where that
 * command exits 1; none while either is still being checked or could not be read (the console's badge says why).
 */
function timelineChain(view: ChainView, store: ChainView): TimelineChain | null {
  const unknown = (v: ChainView) => v.state === ChainState.checking || v.state === ChainState.unreadable;
  if (unknown(view) || unknown(store)) return null;
  if (view.state === ChainState.broken)
    return {
      ok: false,
      events: view.count,
      failure: `chain broken: participant ${view.at?.participant ?? ""}, ${view.failure ?? ""}`,
    };
  return {
    ok: store.state === ChainState.verified,
    events: view.count,
    ...(store.failure === undefined ? {} : { failure: store.failure }),
  };
}

/**
 * Each participant's timeline, drawn by the timeline's own renderer (the `raes history --html` page)
 * over its latest events: one render at a time, each kept for its version (the page asks again with
 * a new version when the participant's history, schedulers or chain moved).
 */
export class TimelineFrames {
  readonly #store: ControlPlaneStore;
  readonly #storeUrl: string;
  readonly #kept = new Map<string, Promise<string>>();
  #queue: Promise<unknown> = Promise.resolve();
  #waiting = 0;

  constructor(store: ControlPlaneStore, storeUrl: string) {
    this.#store = store;
    this.#storeUrl = storeUrl;
  }

  /**
   * The page of `participant` at `version`, rendered once per version; undefined, rendering nothing,
   * when MAX_WAITING_RENDERS renders are already waiting.
   */
  html(
    participant: string,
    version: string,
    chain: ChainView,
    store: ChainView,
  ): Promise<string> | undefined {
    const key = JSON.stringify([participant, version]);
    const kept = this.#kept.get(key);
    if (kept !== undefined) return kept;
    if (this.#waiting >= MAX_WAITING_RENDERS) return undefined;
    this.#waiting += 1;
    const rendered = this.#queue
      .then(() => this.#render(participant, chain, store))
      .finally(() => {
        this.#waiting -= 1;
      });
    this.#queue = rendered.catch(() => undefined);
    this.#kept.set(key, rendered);
    rendered.catch(() => this.#kept.delete(key));
    while (this.#kept.size > KEPT) this.#kept.delete(this.#kept.keys().next().value as string);
    return rendered;
  }

  async #render(participant: string, chain: ChainView, store: ChainView): Promise<string> {
    const timelineChainView = timelineChain(chain, store);
    const input = await readTimelineInput(this.#store, { participantAddress: participant }, undefined, {
      lastEvents: FRAME_EVENTS,
      chain: timelineChainView,
    });
    return [
      ...timelineHtmlParts({ ...input, title: `Timeline of ${participant}`, storeUrl: this.#storeUrl }),
    ].join("");
  }
}
