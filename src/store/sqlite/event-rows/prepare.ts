import { type CanonicalCache, chainDigestAt, type HistoryEventDraft } from "../../../records/index.js";
import { type PackCache, packBody } from "../packed-body.js";

/**
 * One chunk of a large commit's closes, sent to the thread that prepares their event rows: the
 * events of each close in commit order, the sequence the first one takes, and the digest each
 * participant met here for the first time chains from.
 */
export interface EventRowsJob {
  /** The job's place among the commit's jobs, from 0. */
  readonly index: number;
  /** Each close's events, in the order the commit inserts them. */
  readonly closes: readonly (readonly HistoryEventDraft[])[];
  /** The sequence of the chunk's first event; the others follow without gaps. */
  readonly firstSequence: number;
  /** For each participant no earlier chunk linked: the digest its next event chains from. */
  readonly previous: readonly (readonly [participant: string, digest: string])[];
}

/** A chunk's rows, event by event in its order: the stored body and the `chain_digest`. */
export interface EventRows {
  readonly index: number;
  /** Empty when the bodies were not asked for (the writer took the chunk). */
  readonly bodies: readonly string[];
  readonly digests: readonly string[];
}

/**
 * The stored bodies and chain digests of a chunk's events: what the SQLite store's commit writes,
 * computed by the same functions (`packBody`, `chainDigestAt`). `heads` carries each participant's
 * last digest from one chunk to the next; `pack` false links the chunk only (its bodies are not needed).
 */
export function prepareEventRows(job: EventRowsJob, heads: Map<string, string>, pack = true): EventRows {
  for (const [participant, digest] of job.previous) heads.set(participant, digest);
  const bodies: string[] = [];
  const digests: string[] = [];
  const texts: CanonicalCache = new Map();
  let sequence = job.firstSequence;
  for (const events of job.closes) {
    // The events of a close share their frame's objects: each is packed once per close, as the store does.
    const packed: PackCache = new Map();
    for (const draft of events) {
      const previous = heads.get(draft.participant_address);
      if (previous === undefined) throw new Error(`no chain head for ${draft.participant_address}`);
      if (pack) bodies.push(packBody(draft, draft, packed));
      const digest = chainDigestAt(previous, draft, sequence, texts);
      heads.set(draft.participant_address, digest);
      digests.push(digest);
      sequence += 1;
    }
  }
  return { index: job.index, bodies, digests };
}
