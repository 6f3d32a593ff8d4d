export { checkManifest, checkManifestFile } from "./check.js";
export {
  BACKEND_MANIFEST_SCHEMA,
  EXECUTION_BINDING_SCHEMA,
  ManifestDiagnosticCode,
  ManifestSeverity,
  RegistrationErrorCode,
} from "./codes.js";
export { type ExecutionOfferIndex, indexExecutionOffers, type OfferQuery } from "./offers.js";
export { type Registration, RegistrationError, registerParticipantRuntime } from "./registration.js";
export { matchingPool, poolKey } from "./rules/index.js";
export type {
  BackendManifest,
  ExecutionBindingOffer,
  FeatureSupport,
  FeatureSupportLevel,
  InvocationToolActionsClaim,
  ManifestCheck,
  ManifestDiagnostic,
  ParticipantRuntimeCapabilities,
  ResourcePoolCapacity,
} from "./types.js";
