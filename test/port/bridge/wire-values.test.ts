import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BridgeLimits } from "../../../src/port/bridge/limits.js";
import {
  decodeWireValue,
  encodeWireValue,
  UnrepresentableValue,
} from "../../../src/port/bridge/wire-values.js";

/** What a value becomes after one crossing of the socket bridge: encoded, sent as JSON, decoded. */
function crossed(value: unknown): { value: unknown } | undefined {
  return decodeWireValue(JSON.parse(JSON.stringify({ arg: encodeWireValue(value) })).arg);
}

/** A value nested `depth` levels deep. */
function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let i = 1; i < depth; i += 1) value = { inner: value };
  return value;
}

describe("bridge wire values", () => {
  it("sends plain data as it is, in both directions, without a copy", () => {
    const request = {
      toolName: "echo",
      targetAddresses: ["a", "b"],
      executionGeneration: 3,
      n: null,
      ok: true,
    };
    assert.equal(encodeWireValue(request), request);
    assert.equal(decodeWireValue(request)?.value, request);
    assert.deepEqual(crossed(request), { value: request });
  });

  it("still marks what JSON would lose: undefined fields and elements, holes, non-finite numbers", () => {
    const value = { a: undefined, list: [1, undefined, 3], n: Number.NaN };
    const holed: unknown[] = [1];
    holed[2] = 3;
    assert.notEqual(encodeWireValue(value), value);
    assert.deepEqual(crossed(value)?.value, {
      a: undefined,
      list: [1, undefined, 3],
      n: new UnrepresentableValue(),
    });
    assert.deepEqual(crossed(holed)?.value, [1, undefined, 3]);
    assert.ok(Object.hasOwn(crossed(value)?.value as object, "a"));
    // A structured clone (the worker bridge) keeps an array's extra keys; only its elements are data.
    const extra = Object.assign([1, 2], { note: "x" });
    assert.deepEqual(Object.keys(decodeWireValue(extra)?.value as object), ["0", "1"]);
  });

  it("keeps the mark key, class instances and functions from crossing as data", () => {
    // An object holding the mark key is no argument's data: it crosses unrepresentable, never as undefined.
    assert.ok(crossed({ $raes: "undefined" })?.value instanceof UnrepresentableValue);
    assert.ok(crossed(new Date(0))?.value instanceof UnrepresentableValue);
    const withFunction = crossed({ f: () => 1 })?.value as { f: unknown } | undefined;
    assert.ok(withFunction?.f instanceof UnrepresentableValue);
    assert.ok(decodeWireValue({ $raes: "undefined" }) !== undefined);
    assert.equal(decodeWireValue({ $raes: "undefined" })?.value, undefined);
  });

  it("holds plain data to the argument bounds: one level or one value too many does not cross", () => {
    const deepest = nested(BridgeLimits.maxArgumentDepth);
    assert.equal(encodeWireValue(deepest), deepest);
    assert.deepEqual(decodeWireValue(nested(BridgeLimits.maxArgumentDepth + 1)), undefined);
    assert.deepEqual(encodeWireValue(nested(BridgeLimits.maxArgumentDepth + 1)), {
      $raes: "unrepresentable",
    });
    const widest = Array.from({ length: BridgeLimits.maxArgumentValues - 1 }, (_, i) => i);
    assert.equal(decodeWireValue(widest)?.value, widest);
    assert.equal(decodeWireValue([...widest, 0]), undefined);
  });
});
