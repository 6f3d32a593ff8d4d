import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  canonicalAddressBytes,
  decodePublicSeed,
  deriveStreamKey,
  drawBoundedInteger,
  RandomStreamErrorCode,
  rawBlock,
  type StreamAddress,
} from "../../src/random/index.js";
import { ROOT } from "../helpers/example.js";

interface Vector {
  readonly vector_id: string;
  readonly profile_id: string;
  readonly root_entropy: { readonly encoding: string; readonly value: string };
  readonly stream_key_hex: string;
  readonly address: StreamAddress;
  readonly address_canonical_bytes_hex: string;
  readonly raw_block_hex: string;
  readonly transform?: {
    readonly minimum: number;
    readonly maximum: number;
    readonly max_rejection_attempts: number;
    readonly expected_rejection_attempts: number;
    readonly expected_rejection_exhausted: boolean;
    readonly outcome?: { readonly value: string };
  };
}

const DIR = join(ROOT, "test", "fixtures", "conformance", "random-stream");
const vectors: Vector[] = readdirSync(DIR).flatMap((profile) =>
  readdirSync(join(DIR, profile)).map(
    (f) => JSON.parse(readFileSync(join(DIR, profile, f), "utf8")) as Vector,
  ),
);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("RAES random-stream vectors", () => {
  it("covers both published profiles", () => {
    assert.deepEqual([...new Set(vectors.map((v) => v.profile_id))].sort(), [
      "blake3-xof-participant-v1",
      "blake3-xof-v1",
    ]);
    assert.equal(vectors.length, 7);
  });
  for (const v of vectors) {
    describe(`${v.profile_id}/${v.vector_id}`, () => {
      const key = deriveStreamKey(v.profile_id, decodePublicSeed(v.root_entropy.value));
      it("derives the stream key", () => assert.equal(hex(key), v.stream_key_hex));
      it("canonicalises the address", () =>
        assert.equal(hex(canonicalAddressBytes(v.address)), v.address_canonical_bytes_hex));
      it("reads the raw block", () =>
        assert.equal(hex(rawBlock(v.profile_id, key, v.address)), v.raw_block_hex));
      const t = v.transform;
      if (t) {
        it("draws the bounded integer", () => {
          const draw = drawBoundedInteger({
            profileId: v.profile_id,
            streamKey: key,
            address: v.address,
            minimum: t.minimum,
            maximum: t.maximum,
            maxRejectionAttempts: t.max_rejection_attempts,
          });
          assert.equal(draw.rejectionAttempts, t.expected_rejection_attempts);
          assert.equal(draw.rejectionExhausted, t.expected_rejection_exhausted);
          assert.equal(draw.value === undefined ? undefined : String(draw.value), t.outcome?.value);
        });
      }
    });
  }
});

describe("random stream fails closed", () => {
  const seed = decodePublicSeed("42".repeat(32));
  it("refuses an unknown profile", () =>
    assert.throws(() => deriveStreamKey("blake3-xof-v2", seed), {
      code: RandomStreamErrorCode.profile_unsupported,
    }));
  it("refuses a short or non-hex seed", () => {
    assert.throws(() => decodePublicSeed("42"), { code: RandomStreamErrorCode.seed_invalid });
    assert.throws(() => decodePublicSeed("zz".repeat(32)), { code: RandomStreamErrorCode.seed_invalid });
  });
  it("refuses an empty range", () => {
    const key = deriveStreamKey("blake3-xof-participant-v1", seed);
    const address = { namespace: "n", draw_purpose: "agent-policy", local_coordinate: 0 };
    assert.throws(
      () =>
        drawBoundedInteger({
          profileId: "blake3-xof-participant-v1",
          streamKey: key,
          address,
          minimum: 3,
          maximum: 2,
          maxRejectionAttempts: 32,
        }),
      { code: RandomStreamErrorCode.range_invalid },
    );
  });
  it("reads a later block exactly where a longer read of the stream puts it", () => {
    const key = deriveStreamKey("blake3-xof-v1", seed);
    const at = (c: number) => ({ namespace: "n", draw_purpose: "other", local_coordinate: c });
    const long = rawBlock("blake3-xof-v1", key, at(0), 96);
    assert.equal(hex(rawBlock("blake3-xof-v1", key, at(0), 32, 64)), hex(long.subarray(64)));
    assert.notEqual(hex(rawBlock("blake3-xof-v1", key, at(2))), hex(long.subarray(64)));
  });
});
