export { matchingPool, poolKey } from "./budget.js";
export { checkCapabilities } from "./capability.js";
export { checkAgainstModel } from "./model.js";
export { checkOffers } from "./offer.js";
