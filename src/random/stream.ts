import { blake3 } from "@noble/hashes/blake3.js";
import { type AddressValue, canonicalAddressText } from "./canonical.js";
import { RandomStreamError, RandomStreamErrorCode, RandomStreamProfile } from "./codes.js";

/** Bytes in one addressed block; a local coordinate selects the block at `coordinate * 32`. */
export const BLOCK_BYTES = 32;
const ROOT_ENTROPY_BYTES = 32;
const encoder = new TextEncoder();
const profiles = new Set<string>(Object.values(RandomStreamProfile));

/** A stream address of either profile; `local_coordinate` picks the block. */
export type StreamAddress = { readonly local_coordinate: number } & { readonly [key: string]: AddressValue };

/** The RAES participant activity address (profile blake3-xof-participant-v1). */
export interface ParticipantStreamAddress {
  readonly namespace: string;
  readonly policy_address: string;
  readonly participant_address: string;
  readonly time_segment: number;
  readonly occurrence_ordinal: number;
  readonly draw_purpose: string;
  readonly local_coordinate: number;
}

/** One bounded-integer draw: the value, or exhaustion after every attempt was rejected. */
export interface BoundedIntegerDraw {
  readonly value: number | undefined;
  readonly rejectionAttempts: number;
  readonly rejectionExhausted: boolean;
}

function requireProfile(profileId: string): void {
  if (!profiles.has(profileId))
    throw new RandomStreamError(
      RandomStreamErrorCode.profile_unsupported,
      `unsupported random stream profile ${profileId}`,
    );
}

/** Decodes a `hex-fixed-width` public seed (64 hex digits) to its 32 bytes. */
export function decodePublicSeed(hex: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new RandomStreamError(RandomStreamErrorCode.seed_invalid, "a public seed is exactly 64 hex digits");
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** The profile-scoped stream key: BLAKE3 derive-key with context `raes-random-stream-v1|profile=<id>`. */
export function deriveStreamKey(profileId: string, rootEntropy: Uint8Array): Uint8Array {
  requireProfile(profileId);
  if (rootEntropy.length !== ROOT_ENTROPY_BYTES)
    throw new RandomStreamError(RandomStreamErrorCode.seed_invalid, "root entropy is exactly 32 bytes");
  return blake3(rootEntropy, { context: encoder.encode(`raes-random-stream-v1|profile=${profileId}`) });
}

/** The RFC 8785 canonical bytes of a stream address. */
export function canonicalAddressBytes(address: StreamAddress | ParticipantStreamAddress): Uint8Array {
  return encoder.encode(canonicalAddressText(address as unknown as AddressValue));
}

/** A keyed XOF reader over one address, positioned at the start of its local coordinate's block. */
function addressedReader(
  streamKey: Uint8Array,
  addressBytes: Uint8Array,
  localCoordinate: number,
  offset: number,
) {
  const hasher = blake3.create({ key: streamKey }).update(addressBytes);
  // noble's XOF continues where it stopped, so reading past the seek point is a true stream seek.
  const seek = localCoordinate * BLOCK_BYTES + offset;
  if (seek > 0) hasher.xof(seek);
  return hasher;
}

/** `byteLength` XOF bytes at `byteOffset` within the address's block (RAES `raw_block`). */
export function rawBlock(
  profileId: string,
  streamKey: Uint8Array,
  address: StreamAddress | ParticipantStreamAddress,
  byteLength = BLOCK_BYTES,
  byteOffset = 0,
): Uint8Array {
  requireProfile(profileId);
  if (byteLength < 1 || byteOffset < 0)
    throw new RandomStreamError(RandomStreamErrorCode.range_invalid, "a block read needs a positive length");
  return addressedReader(streamKey, canonicalAddressBytes(address), address.local_coordinate, byteOffset).xof(
    byteLength,
  );
}

/** Inputs of one bounded-integer draw. */
export interface BoundedIntegerRequest {
  readonly profileId: string;
  readonly streamKey: Uint8Array;
  readonly address: StreamAddress | ParticipantStreamAddress;
  /** Precomputed canonical bytes of `address`, when the caller has them. */
  readonly addressBytes?: Uint8Array;
  readonly minimum: number;
  readonly maximum: number;
  readonly maxRejectionAttempts: number;
}

/**
 * An unbiased integer in [minimum, maximum] by rejection sampling: each attempt reads the next
 * big-endian `byteWidth` bytes of the block window and accepts it below the largest multiple of
 * the range width; exhaustion is reported, never clamped or folded.
 */
export function drawBoundedInteger(request: BoundedIntegerRequest): BoundedIntegerDraw {
  const { minimum, maximum, maxRejectionAttempts } = request;
  requireProfile(request.profileId);
  if (
    !Number.isSafeInteger(minimum) ||
    !Number.isSafeInteger(maximum) ||
    maximum < minimum ||
    maxRejectionAttempts < 1
  )
    throw new RandomStreamError(
      RandomStreamErrorCode.range_invalid,
      `invalid range [${minimum}, ${maximum}]`,
    );
  const width = BigInt(maximum) - BigInt(minimum) + 1n;
  let byteWidth = 1;
  while (256n ** BigInt(byteWidth) < width) byteWidth += 1;
  const ceiling = 256n ** BigInt(byteWidth);
  const limit = ceiling - (ceiling % width);
  const bytes = request.addressBytes ?? canonicalAddressBytes(request.address);
  const reader = addressedReader(request.streamKey, bytes, request.address.local_coordinate, 0);
  for (let attempt = 0; attempt < maxRejectionAttempts; attempt += 1) {
    const chunk = reader.xof(byteWidth);
    if (byteWidth <= 6) {
      let raw = 0;
      for (const b of chunk) raw = raw * 256 + b;
      if (raw < Number(limit))
        return {
          value: minimum + (raw % Number(width)),
          rejectionAttempts: attempt,
          rejectionExhausted: false,
        };
    } else {
      let raw = 0n;
      for (const b of chunk) raw = raw * 256n + BigInt(b);
      if (raw < limit)
        return {
          value: minimum + Number(raw % width),
          rejectionAttempts: attempt,
          rejectionExhausted: false,
        };
    }
  }
  return { value: undefined, rejectionAttempts: maxRejectionAttempts, rejectionExhausted: true };
}
