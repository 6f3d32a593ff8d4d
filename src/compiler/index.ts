export {
  Addresses,
  address,
  isAddress,
  isAddressSegment,
  resolveRefAddress,
  resolveRefAddresses,
} from "./addresses.js";
export { canonicalDigest, canonicalJson } from "./canonical.js";
export { compileScenario } from "./compile.js";
export * from "./model.js";
export { toWireJson, toWireValue } from "./wire.js";
