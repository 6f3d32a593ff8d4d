/** Random-stream profiles this implementation dispatches; nothing else is ever inferred. */
export const RandomStreamProfile = {
  /** RAES's study-level stream (trial-coordinate addresses). */
  blake3_xof_v1: "blake3-xof-v1",
  /** RAES's participant activity stream (occurrence addresses). */
  blake3_xof_participant_v1: "blake3-xof-participant-v1",
} as const;
/** A random-stream profile id. */
export type RandomStreamProfile = (typeof RandomStreamProfile)[keyof typeof RandomStreamProfile];

/** Why a random-stream operation failed closed. */
export const RandomStreamErrorCode = {
  /** The profile id is not one this implementation dispatches. */
  profile_unsupported: "random-stream.profile-unsupported",
  /** A public seed is not 64 hex digits (32 bytes). */
  seed_invalid: "random-stream.seed-invalid",
  /** A bounded-integer request has an empty range or no attempt budget. */
  range_invalid: "random-stream.range-invalid",
  /** A value in a stream address cannot be canonicalised (not a string, safe integer or object). */
  address_invalid: "random-stream.address-invalid",
  /** Every rejection-sampling attempt was rejected. */
  rejection_exhausted: "random-stream.rejection-exhausted",
} as const;
/** A random-stream error code. */
export type RandomStreamErrorCode = (typeof RandomStreamErrorCode)[keyof typeof RandomStreamErrorCode];

/** An error with a fixed code from `RandomStreamErrorCode`. */
export class RandomStreamError extends Error {
  readonly code: RandomStreamErrorCode;
  constructor(code: RandomStreamErrorCode, message: string) {
    super(message);
    this.name = "RandomStreamError";
    this.code = code;
  }
}
