import type { BackendManifest, ExecutionBindingOffer } from "./types.js";

/** What an action needs an offer for: its contract, the implementation that runs it and its targets. */
export interface OfferQuery {
  readonly actionContractAddress: string;
  readonly participantImplementationRef: string;
  readonly targetAddresses: readonly string[];
}

/** The manifest's offers, indexed so coverage is cheap to ask on every admission. */
export interface ExecutionOfferIndex {
  /** The offers whose action and implementation equal the query's and whose targets include all of its targets. */
  covering(query: OfferQuery): readonly ExecutionBindingOffer[];
  /** The offers for an action and implementation, whatever their targets. */
  forAction(
    actionContractAddress: string,
    participantImplementationRef: string,
  ): readonly ExecutionBindingOffer[];
}

interface IndexedOffer {
  readonly offer: ExecutionBindingOffer;
  readonly targets: ReadonlySet<string>;
}

const NO_OFFERS: readonly ExecutionBindingOffer[] = Object.freeze([]);

function keyOf(actionContractAddress: string, participantImplementationRef: string): string {
  return `${actionContractAddress}\u0000${participantImplementationRef}`;
}

/** Indexes a manifest's execution-binding offers by action and implementation, with target sets. */
export function indexExecutionOffers(manifest: BackendManifest): ExecutionOfferIndex {
  const byAction = new Map<string, IndexedOffer[]>();
  for (const offer of manifest.participantRuntime.executionBindings) {
    const key = keyOf(offer.actionContractAddress, offer.participantImplementationRef);
    const entry = { offer, targets: new Set(offer.targetAddresses) };
    const group = byAction.get(key);
    if (group === undefined) byAction.set(key, [entry]);
    else group.push(entry);
  }
  const offersByAction = new Map(
    [...byAction].map(([key, group]) => [key, Object.freeze(group.map((entry) => entry.offer))] as const),
  );
  return {
    covering(query) {
      const group = byAction.get(keyOf(query.actionContractAddress, query.participantImplementationRef));
      if (group === undefined) return NO_OFFERS;
      const covering: ExecutionBindingOffer[] = [];
      for (const entry of group) {
        if (query.targetAddresses.every((target) => entry.targets.has(target))) covering.push(entry.offer);
      }
      return covering;
    },
    forAction(actionContractAddress, participantImplementationRef) {
      return offersByAction.get(keyOf(actionContractAddress, participantImplementationRef)) ?? NO_OFFERS;
    },
  };
}
