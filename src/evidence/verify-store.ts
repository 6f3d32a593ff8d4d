import { setImmediate as nextTurn } from "node:timers/promises";
import type { ControlPlaneStore, StoreReader } from "../store/index.js";
import { type ChainReport, ChainVerifier } from "./verify-chain.js";
import { type DecisionReport, DecisionVerifier } from "./verify-decisions.js";
import { type ResolutionReport, verifyResolutions } from "./verify-resolutions.js";

/** Events read per page by `verifyStore`: memory stays bounded at any history length. */
export const VERIFY_PAGE = 5000;

/**
 * Where a chain read starts: before any sequence, not at 0, so an event someone put at sequence 0
 * or below is read, and named, like any other (the history and the timeline show such a row too).
 */
export const BEFORE_FIRST_SEQUENCE = Number.MIN_SAFE_INTEGER;

/** A store's history chains and its operator chain, recomputed. */
export interface StoreReport extends ChainReport {
  /** The operator chain (docs/evidence-format.md); `ok` is false when it or a history chain breaks. */
  readonly operator: DecisionReport;
  /**
   * Each resolved operation's record against its chained `resolve` decision, checked once both chains
   * verify (docs/evidence-format.md, "What the chains cover"); `ok` is false when one disagrees.
   */
  readonly resolutions?: ResolutionReport;
}

/**
 * Recomputes every participant's chain in a store, then its operator chain, reading its history in commit order a page at a
 * time (`readChainPage`), and stops at the first event that does not verify. Heads and pages are read
 * in one snapshot (`readSnapshot`), so a writer appending meanwhile is not mistaken for tampering.
 *
 * @example
 * const report = await verifyStore(store);
 * if (!report.ok) console.error(report.failure?.detail);
 */
export async function verifyStore(
  store: Pick<ControlPlaneStore, "readSnapshot">,
  pageSize = VERIFY_PAGE,
): Promise<StoreReport> {
  return store.readSnapshot((reads) => verifyReads(reads, pageSize));
}

/** `verifyStore` over reads already taken from one snapshot. */
export async function verifyReads(reads: StoreReader, pageSize = VERIFY_PAGE): Promise<StoreReport> {
  return verifyStoreAfter(reads, await verifyHistory(reads, pageSize), pageSize);
}

/**
 * `verifyStore` for a reader that already recomputed the history chains: one that read the whole
 * history in commit order (no filter, from before the first sequence) through a `ChainVerifier` made
 * from `listChainHeads()` before it read, and passes its report here. The operator chain and the
 * resolutions are checked as `verifyStore` checks them, so the history is not read a second time.
 */
export async function verifyStoreAfter(
  reads: StoreReader,
  chains: ChainReport,
  pageSize = VERIFY_PAGE,
): Promise<StoreReport> {
  const operator = await decisionsOf(reads, pageSize);
  if (!chains.ok || !operator.ok) return { ...chains, ok: false, operator };
  const resolutions = await verifyResolutions(reads);
  return { ...chains, ok: resolutions.ok, operator, resolutions };
}

/**
 * What fails first in a store's report, for a person, or undefined when it verifies: the one sentence
 * `raes verify --store` prints after the store's name (docs/evidence-format.md), and what the timeline
 * and `raes serve` badges show, so no view of a store calls verified what `raes verify` fails.
 */
export function storeFailure(report: StoreReport): string | undefined {
  const f = report.failure;
  if (f !== undefined) {
    const who = f.participant_address === "" ? "" : `participant ${f.participant_address}, `;
    return `chain broken: ${f.kind} event: ${who}sequence ${f.sequence}: ${f.detail}`;
  }
  const o = report.operator.failure;
  if (o !== undefined)
    return `operator chain broken: ${o.kind} decision: sequence ${o.sequence}: ${o.detail}`;
  const r = report.resolutions?.failure;
  if (r !== undefined)
    return `operation record does not match the operator chain: operation ${r.id}: ${r.detail}`;
  // A report is not ok only with one of the failures above; said anyway rather than shown empty.
  return report.ok ? undefined : "the store does not verify";
}

/** Recomputes the store's operator chain a page at a time (one snapshot), stopping at the first decision that fails. */
export async function verifyDecisions(
  store: Pick<ControlPlaneStore, "readSnapshot">,
  pageSize = VERIFY_PAGE,
): Promise<DecisionReport> {
  return store.readSnapshot((reads) => decisionsOf(reads, pageSize));
}

async function decisionsOf(store: StoreReader, pageSize: number): Promise<DecisionReport> {
  const verifier = new DecisionVerifier(await store.getDecisionHead());
  let after = 0;
  for (;;) {
    const page = await store.readDecisionPage(after, pageSize);
    if (page.length === 0) break;
    for (const decision of page) {
      if (!verifier.add(decision)) return verifier.finish();
      after = decision.sequence;
    }
    await nextTurn();
  }
  return verifier.finish();
}

async function verifyHistory(store: StoreReader, pageSize: number): Promise<ChainReport> {
  const verifier = new ChainVerifier(await store.listChainHeads());
  let after = BEFORE_FIRST_SEQUENCE;
  for (;;) {
    const page = await store.readChainPage(after, pageSize);
    if (page.length === 0) break;
    for (const event of page) {
      if (!verifier.add(event)) return verifier.finish();
      after = event.sequence;
    }
    // A SQLite store answers each page at once: without a turn between pages, a process serving
    // pages (the console) would answer nobody until a long history was checked.
    await nextTurn();
  }
  return verifier.finish();
}

/**
 * Recomputes one participant's chain alone, a page at a time, against its recorded head: what a live
 * view shows per participant. An edited, inserted, reordered or removed event of it, or a history cut
 * short of its head, fails; `raes verify` (verifyStore) remains the whole check, commit order included.
 */
export async function verifyParticipantChain(
  store: Pick<ControlPlaneStore, "readSnapshot">,
  participantAddress: string,
  pageSize = VERIFY_PAGE,
): Promise<ChainReport> {
  return store.readSnapshot(async (reads) => {
    const heads = (await reads.listChainHeads()).filter((h) => h.participant_address === participantAddress);
    const verifier = new ChainVerifier(heads, { gaps: false });
    // The first page from the history's start, as verifyStore reads from BEFORE_FIRST_SEQUENCE: a row
    // put at sequence 0 or below is read and named. The verifier stops at such a row, so every later
    // page starts after a sequence of at least 1.
    let after: number | undefined;
    for (;;) {
      const page = await reads.listEvents({
        participantAddress,
        ...(after === undefined ? {} : { afterSequence: after }),
        limit: pageSize,
      });
      if (page.length === 0) break;
      for (const event of page) {
        if (!verifier.add(event)) return verifier.finish();
        after = event.sequence;
      }
      await nextTurn();
    }
    return verifier.finish();
  });
}
