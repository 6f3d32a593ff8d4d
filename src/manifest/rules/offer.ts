import { isLimit } from "../claim.js";
import { ManifestDiagnosticCode as Code } from "../codes.js";
import { type DiagnosticSink, isCompiledAddress, pointer, reportDuplicates } from "../diagnostics.js";
import type { OfferDraft, RuntimeDraft } from "../draft.js";

const OFFER_LIMITS = [
  ["max_action_attempts", "maxActionAttempts", 1],
  ["max_in_flight", "maxInFlight", 1],
  ["timeout_seconds", "timeoutSeconds", 1],
  ["max_retries", "maxRetries", 0],
] as const;

function checkOfferLists(sink: DiagnosticSink, offer: OfferDraft): void {
  const at = (key: string, index?: number) =>
    index === undefined ? `${offer.path}${pointer(key)}` : `${offer.path}${pointer(key, index)}`;
  if (offer.targetAddresses?.length === 0) {
    sink.error(
      Code.offer_targets_empty,
      at("target_addresses"),
      "an offer must name at least one target address",
    );
  }
  for (const [key, values] of [
    ["constraint_refs", offer.constraintRefs],
    ["evidence_refs", offer.evidenceRefs],
  ] as const) {
    if (values?.length === 0)
      sink.error(Code.offer_refs_empty, at(key), `an offer must name at least one of ${key}`);
  }
  for (const [key, values] of [
    ["target_addresses", offer.targetAddresses],
    ["constraint_refs", offer.constraintRefs],
    ["evidence_refs", offer.evidenceRefs],
  ] as const) {
    reportDuplicates(sink, values ?? [], (index) => at(key, index), key);
  }
  if (offer.actionContractAddress !== undefined && !isCompiledAddress(offer.actionContractAddress)) {
    sink.error(
      Code.address_invalid,
      at("action_contract_address"),
      `'${offer.actionContractAddress}' is not a compiled address`,
    );
  }
  offer.targetAddresses?.forEach((target, index) => {
    if (!isCompiledAddress(target)) {
      sink.error(
        Code.address_invalid,
        at("target_addresses", index),
        `'${target}' is not a compiled address`,
      );
    }
  });
}

/**
 * An offer's `max_in_flight` may not exceed the claim's concurrent tool-action limit: the port never lets more
 * than that many tool actions of one invocation be unsettled, so a larger offer limit promises what cannot occur.
 * RAES's own rule bounds it by `max_concurrent_actions` too.
 */
function checkOfferLimits(sink: DiagnosticSink, offer: OfferDraft, runtime: RuntimeDraft): void {
  for (const [key, field, minimum] of OFFER_LIMITS) {
    const value = offer[field];
    if (value !== undefined && !isLimit(value, minimum)) {
      sink.error(
        Code.offer_limit_invalid,
        `${offer.path}${pointer(key)}`,
        `${key} is ${value}; it must be an integer ≥ ${minimum}`,
      );
    }
  }
  if (!isLimit(offer.maxInFlight, 1)) return;
  const inFlightPath = `${offer.path}${pointer("max_in_flight")}`;
  const claimLimit = runtime.claim?.maxConcurrentToolActionsPerInvocation;
  if (isLimit(claimLimit, 1) && offer.maxInFlight > claimLimit) {
    sink.error(
      Code.offer_exceeds_concurrency,
      inFlightPath,
      `max_in_flight ${offer.maxInFlight} exceeds the claim's max_concurrent_tool_actions_per_invocation ${claimLimit}`,
    );
  }
  if (isLimit(runtime.maxConcurrentActions, 2) && offer.maxInFlight > runtime.maxConcurrentActions) {
    sink.error(
      Code.offer_exceeds_concurrency,
      inFlightPath,
      `max_in_flight ${offer.maxInFlight} exceeds max_concurrent_actions ${runtime.maxConcurrentActions}`,
    );
  }
}

function checkOfferSupport(sink: DiagnosticSink, offer: OfferDraft, runtime: RuntimeDraft): void {
  if (runtime.supportsAutonomousExecution !== true) return;
  const actions = new Set(runtime.supportedAutonomousActionContracts);
  const targets = new Set(runtime.supportedAutonomousTargetAddresses);
  if (offer.actionContractAddress !== undefined && !actions.has(offer.actionContractAddress)) {
    sink.error(
      Code.offer_action_unsupported,
      `${offer.path}${pointer("action_contract_address")}`,
      `'${offer.actionContractAddress}' is not in supported_autonomous_action_contracts`,
    );
  }
  offer.targetAddresses?.forEach((target, index) => {
    if (!targets.has(target)) {
      sink.error(
        Code.offer_target_unsupported,
        `${offer.path}${pointer("target_addresses", index)}`,
        `'${target}' is not in supported_autonomous_target_addresses`,
      );
    }
  });
}

/**
 * Warns once for each offer that shares a target with an earlier offer of the same action and
 * implementation, naming the earliest such offer. Each target remembers the first offer of its group that
 * covered it, so the check is linear in the targets: a pairwise comparison was quadratic in the offers.
 */
function reportOverlaps(sink: DiagnosticSink, offers: readonly OfferDraft[]): void {
  const firstByTarget = new Map<string, Map<string, number>>();
  offers.forEach((later, laterIndex) => {
    if (later.actionContractAddress === undefined) return;
    const group = JSON.stringify([later.actionContractAddress, later.participantImplementationRef ?? null]);
    const first = firstByTarget.get(group) ?? new Map<string, number>();
    firstByTarget.set(group, first);
    let earliest: number | undefined;
    for (const target of later.targetAddresses ?? []) {
      const index = first.get(target);
      if (index !== undefined && (earliest === undefined || index < earliest)) earliest = index;
    }
    for (const target of later.targetAddresses ?? []) if (!first.has(target)) first.set(target, laterIndex);
    const earlier = earliest === undefined ? undefined : offers[earliest];
    if (earlier === undefined) return;
    const earlierTargets = new Set(earlier.targetAddresses);
    const shared = (later.targetAddresses ?? []).filter((target) => earlierTargets.has(target));
    sink.warning(
      Code.offers_overlap,
      later.path,
      `offer '${later.bindingId}' and offer '${earlier.bindingId}' both cover ${later.actionContractAddress} ` +
        `on ${shared.join(", ")}; a request on those targets is ambiguous`,
    );
  });
}

/** Checks every execution-binding offer on its own and against the runtime's capabilities and claim. */
export function checkOffers(sink: DiagnosticSink, runtime: RuntimeDraft): void {
  const offers = runtime.executionBindings;
  for (const offer of offers) {
    checkOfferLists(sink, offer);
    checkOfferLimits(sink, offer, runtime);
    checkOfferSupport(sink, offer, runtime);
  }
  const named = offers.filter((offer) => offer.bindingId !== undefined);
  reportDuplicates(
    sink,
    named.map((offer) => offer.bindingId ?? ""),
    (index) => `${named[index]?.path ?? ""}${pointer("binding_id")}`,
    "binding_id",
  );
  reportOverlaps(sink, offers);
}
