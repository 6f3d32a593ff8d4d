export { canonicalDigest, canonicalJson } from "./canonical.js";
export * from "./model.js";
