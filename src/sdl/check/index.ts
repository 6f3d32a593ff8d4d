export { toolAffordanceRef } from "./affordances.js";
export { policyActionRefs } from "./autonomous/index.js";
export { validateScenario } from "./validate.js";
