export {
  BUNDLE_FORMAT,
  type BundleOptions,
  type BundleReport,
  type BundleSummary,
  signedText,
  verifyBundle,
  writeBundle,
} from "./bundle.js";
export { ChainBreak, type ChainFailure, type ChainReport, ChainVerifier } from "./verify-chain.js";
export { VERIFY_PAGE, verifyStore } from "./verify-store.js";
