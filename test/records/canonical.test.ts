import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import fc from "fast-check";
import { canonicalDigest, canonicalJson } from "../../src/records/canonical.js";

/** The digest as it was made before the one-shot hash: a Hash object per call. */
function hashObjectDigest(value: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(value)).digest("hex")}`;
}

/** Any UTF-16 code unit, lone surrogates and control characters included. */
const unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

describe("canonicalJson", () => {
  it("keeps a member named __proto__, as JSON.parse gives it: values that differ there differ", () => {
    const one = JSON.parse('{"b":{"__proto__":{"x":1}},"__proto__":[1],"a":1}');
    const two = JSON.parse('{"b":{"__proto__":{"x":2}},"__proto__":[1],"a":1}');
    assert.equal(canonicalJson(one), '{"__proto__":[1],"a":1,"b":{"__proto__":{"x":1}}}');
    assert.notEqual(canonicalDigest(one), canonicalDigest(two));
  });

  it("is the JSON of the same value, members sorted: it parses back to what it was made of", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) =>
        assert.deepEqual(JSON.parse(canonicalJson(v)), JSON.parse(JSON.stringify(v))),
      ),
      { numRuns: 2000 },
    );
  });
});

describe("canonicalDigest", () => {
  it("gives the digest a Hash object gives, on any JSON value and any string", () => {
    const value = fc.oneof(
      fc.jsonValue(),
      fc.string({ unit, maxLength: 40 }),
      fc.string({ maxLength: 2000 }),
    );
    fc.assert(
      fc.property(value, (v) => assert.equal(canonicalDigest(v), hashObjectDigest(v))),
      { numRuns: 2000 },
    );
  });

  it("keeps a digest computed before the one-shot hash", () => {
    const value = {
      b: [1, -0, 1e21, 0.1, '\ud800x\u2028"\\\n'],
      a: { z: null, y: true, é: "ü" },
      c: undefined,
    };
    assert.equal(
      canonicalDigest(value),
      "sha256:7b31f0efeb8c1b3be653990e3331380a3a051f8b1013100ec241acf221d80c37",
    );
  });
});
