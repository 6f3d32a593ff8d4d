import type { ExecutionOfferIndex } from "../manifest/index.js";
import type { ParticipantActionRequest } from "./types.js";

const MAX_TIMER_MS = 2_147_483_647;

/**
 * The bound on each outer invocation: the timeout_seconds of the offer covering its action,
 * implementation and targets. Registration admits only covered actions; should several offers cover
 * one, the shortest bound holds, since every one of them promised to finish within its own.
 */
export function outerTimeouts(
  offers: ExecutionOfferIndex,
): (request: ParticipantActionRequest) => number | undefined {
  const cache = new Map<string, number | undefined>();
  return (request) => {
    const key = `${request.actionContractAddress}\u0000${request.participantImplementationRef}\u0000${request.targetAddresses.join("\u0000")}`;
    if (cache.has(key)) return cache.get(key);
    let seconds: number | undefined;
    for (const offer of offers.covering(request)) {
      if (seconds === undefined || offer.timeoutSeconds < seconds) seconds = offer.timeoutSeconds;
    }
    // Beyond setTimeout's range (about 24.8 days) a bound would fire at once; treat it as none.
    const ms =
      seconds === undefined || !(seconds > 0) || seconds * 1000 > MAX_TIMER_MS
        ? undefined
        : Math.round(seconds * 1000);
    cache.set(key, ms);
    return ms;
  };
}
