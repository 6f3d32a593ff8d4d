export { checkAutonomousPolicies, policyActionRefs } from "./policy.js";
