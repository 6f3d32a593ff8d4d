export { canonicalDigest, canonicalJson } from "../records/index.js";
/** The v3 resource vocabulary the compiled budgets use (RAES's units and accounting modes per kind). */
export { RESOURCE_ACCOUNTING, RESOURCE_KINDS, RESOURCE_UNIT } from "../sdl/index.js";
export {
  Addresses,
  address,
  isAddress,
  isAddressSegment,
  resolveRefAddress,
  resolveRefAddresses,
} from "./addresses.js";
export { compileScenario } from "./compile.js";
export { CompileError, CompileErrorCode } from "./errors.js";
export * from "./model.js";
export { policyDigest } from "./policy-digest.js";
export { toWireJson, toWireValue } from "./wire.js";
