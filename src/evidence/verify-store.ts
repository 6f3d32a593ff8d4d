import type { ControlPlaneStore } from "../store/index.js";
import { type ChainReport, ChainVerifier } from "./verify-chain.js";

/** Events read per page by `verifyStore`: memory stays bounded at any history length. */
export const VERIFY_PAGE = 5000;

/**
 * Recomputes every participant's chain in a store, reading its history in commit order a page at a
 * time (`readChainPage`), and stops at the first event that does not verify.
 *
 * @example
 * const report = await verifyStore(store);
 * if (!report.ok) console.error(report.failure?.detail);
 */
export async function verifyStore(store: ControlPlaneStore, pageSize = VERIFY_PAGE): Promise<ChainReport> {
  const verifier = new ChainVerifier(await store.listChainHeads());
  let after = 0;
  for (;;) {
    const page = await store.readChainPage(after, pageSize);
    if (page.length === 0) break;
    for (const event of page) {
      if (!verifier.add(event)) return verifier.finish();
      after = event.sequence;
    }
  }
  return verifier.finish();
}
