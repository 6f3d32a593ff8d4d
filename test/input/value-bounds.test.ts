import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JSON_VALUE_BOUNDS, MAX_JSON_DEPTH, valueBoundsExceeded } from "../../src/input/index.js";

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

describe("valueBoundsExceeded", () => {
  it("passes any value parsed from JSON text of at most 1 MB nested at most 64 deep", () => {
    const dense = JSON.parse(`[${Array(499_999).fill("0").join(",")}]`);
    assert.equal(valueBoundsExceeded(dense), undefined);
    const strings = JSON.parse(JSON.stringify({ a: "x".repeat(999_000) }));
    assert.equal(valueBoundsExceeded(strings), undefined);
    const keys = JSON.parse(
      JSON.stringify(Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, 1]))),
    );
    assert.ok(JSON.stringify(keys).length < 1_000_000);
    assert.equal(valueBoundsExceeded(keys), undefined);
    assert.equal(valueBoundsExceeded(nested(MAX_JSON_DEPTH - 1)), undefined);
  });

  it("refuses a value too large, too deep or containing itself, naming the bound", () => {
    assert.match(valueBoundsExceeded(new Array(1_000_001).fill(0)) ?? "", /larger than 1000000/);
    assert.match(valueBoundsExceeded({ a: "x".repeat(1_000_000) }) ?? "", /larger than/);
    assert.match(valueBoundsExceeded(nested(MAX_JSON_DEPTH + 1)) ?? "", /deeper than 64 levels/);
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    assert.match(valueBoundsExceeded(loop) ?? "", /deeper than/);
    assert.equal(valueBoundsExceeded([1, 2, 3], { ...JSON_VALUE_BOUNDS, maxSize: 4 }), undefined);
    assert.match(valueBoundsExceeded([1, 2, 3, 4], { ...JSON_VALUE_BOUNDS, maxSize: 4 }) ?? "", /larger/);
  });

  it("stops walking a shared subtree once the bound is spent, whatever the value's expanded size", () => {
    let value: unknown = [0, 0];
    for (let level = 0; level < 60; level++) value = [value, value];
    // 2^60 nodes when expanded; the walk stops after about a million.
    assert.match(valueBoundsExceeded(value) ?? "", /larger than/);
  });
});
