export { type AddressValue, canonicalAddressText } from "./canonical.js";
export { RandomStreamError, RandomStreamErrorCode, RandomStreamProfile } from "./codes.js";
export { controlFingerprint } from "./fingerprint.js";
export {
  BLOCK_BYTES,
  type BoundedIntegerDraw,
  type BoundedIntegerRequest,
  canonicalAddressBytes,
  decodePublicSeed,
  deriveStreamKey,
  drawBoundedInteger,
  type ParticipantStreamAddress,
  rawBlock,
  type StreamAddress,
} from "./stream.js";
