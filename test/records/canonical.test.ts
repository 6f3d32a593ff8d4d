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

/** canonicalJson as it is defined: JSON.stringify of a copy whose members were added sorted. */
function copiedJson(value: unknown): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = Object.create(null);
      for (const key of Object.keys(v).sort()) {
        const member = (v as Record<string, unknown>)[key];
        if (member !== undefined) out[key] = sortKeys(member);
      }
      return out;
    }
    return v;
  };
  return JSON.stringify(sortKeys(value));
}

describe("canonicalJson", () => {
  it("is the JSON of a sorted copy, index names first, on anything", () => {
    const key = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom(
        "__proto__",
        "toString",
        "0",
        "1",
        "10",
        "2",
        "01",
        "-1",
        "4294967294",
        "4294967295",
        "1e3",
      ),
    );
    const value = fc.anything({
      key,
      maxDepth: 4,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withNullPrototype: true,
      withObjectString: true,
      withSet: true,
      withSparseArray: true,
      withTypedArray: true,
    });
    fc.assert(
      fc.property(value, (v) => assert.equal(canonicalJson(v), copiedJson(v))),
      { numRuns: 5000 },
    );
  });

  it("calls a member's own toJSON as JSON.stringify does", () => {
    const v = { b: 1, a: { toJSON: () => ({ z: 1, y: 2 }) } };
    assert.equal(canonicalJson(v), copiedJson(v));
  });

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
