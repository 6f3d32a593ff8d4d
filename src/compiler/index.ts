export { canonicalDigest, canonicalJson } from "../records/index.js";
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
