export {
  BUNDLE_FORMAT,
  type BundleOptions,
  type BundleReport,
  type BundleSummary,
  StoreBrokenError,
  signedText,
  verifyBundle,
  writeBundle,
} from "./bundle.js";
export {
  type BundleInput,
  InputRole,
  manifestDigest,
  type ScenarioDigest,
} from "./bundle-inputs.js";
export {
  BundleLineTooLongError,
  BundleUnreadableError,
  BundleUnwritableError,
  EvidenceCode,
  InputUnanchoredError,
  MAX_BUNDLE_LINE_BYTES,
  MAX_PROBLEMS_PER_KIND,
} from "./bundle-lines.js";
export {
  ChainBreak,
  type ChainFailure,
  type ChainReport,
  ChainVerifier,
  MAX_EVIDENCE_DEPTH,
} from "./verify-chain.js";
export {
  type DecisionFailure,
  type DecisionReport,
  DecisionVerifier,
} from "./verify-decisions.js";
export {
  type ResolutionFailure,
  type ResolutionReport,
  verifyResolutions,
} from "./verify-resolutions.js";
export {
  BEFORE_FIRST_SEQUENCE,
  type StoreReport,
  storeFailure,
  VERIFY_PAGE,
  verifyDecisions,
  verifyParticipantChain,
  verifyReads,
  verifyStore,
  verifyStoreAfter,
} from "./verify-store.js";
