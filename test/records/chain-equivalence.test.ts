import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import canonicalize from "canonicalize";
import { chainDigest, rfc8785 } from "../../src/records/index.js";
import { fuzzInputsPerTarget } from "../helpers/fuzz-budget.js";

/**
 * rfc8785 quotes a string needing no escaping itself and keeps each member order's sorted names:
 * generated events, whatever their strings, numbers and member orders, are written as the
 * `canonicalize` package (an RFC 8785 implementation) writes them, and digested as the chain
 * (docs/evidence-format.md) defines.
 */

/** A seeded generator (mulberry32): the same inputs every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** RFC 8785 Appendix B's doubles and JSON.stringify's edges. */
const NUMBERS = [
  0,
  -0,
  5e-324,
  -5e-324,
  1.7976931348623157e308,
  9007199254740992,
  -9007199254740992,
  295147905179352830000,
  9.999999999999997e22,
  1e23,
  1.0000000000000001e23,
  999999999999999700000,
  999999999999999900000,
  1e21,
  9.999999999999997e-7,
  0.000001,
  333333333.3333332,
  333333333.33333325,
  333333333.3333333,
  333333333.3333334,
  333333333.33333343,
  -0.0000033333333333333333,
  1424953923781206.2,
  0.1 + 0.2,
  1e-7,
  4.5,
  2e-3,
  1e30,
];

/** Pieces strings are made of: plain text, every kind JSON escapes, paired surrogates, and what it does not escape. */
const PIECES = [
  "sha256:",
  "participant.action-contract.probe",
  "2026-12-03T07:50:50.200632Z",
  "#action_attempted",
  '"',
  "\\",
  "/",
  "\u0000",
  "\u0008",
  "\n",
  "\r",
  "\t",
  "\u001f",
  "\u007f",
  "\u0080",
  "é",
  "€",
  "\u2028",
  "\u2029",
  "\ud83d\ude00",
  "\ufb33",
  "\uffff",
  "<",
  "",
  " ",
];

/** Member names: an event's, and ones whose order is by UTF-16 code units, not code points. */
const NAMES = [
  "event_id",
  "event_type",
  "timestamp",
  "participant_address",
  "sequence",
  "chain_digest",
  "a",
  "b",
  "",
  "1",
  "10",
  "2",
  "\r",
  "é",
  "\u20ac",
  "\ud83d\ude00",
  "\ufb33",
  "__proto__",
  'quo"te',
];

function generator(seed: number) {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const string = (): string => {
    let text = "";
    for (let n = Math.floor(next() * 5); n > 0; n -= 1) text += pick(PIECES);
    return text;
  };
  const number = (): number => {
    const r = next();
    if (r < 0.4) return pick(NUMBERS);
    if (r < 0.7) return Math.floor(next() * 2 ** 32) - 2 ** 31;
    return (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
  };
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 4 || r < 0.35) return string();
    if (r < 0.5) return number();
    if (r < 0.55) return next() < 0.5;
    if (r < 0.6) return null;
    if (r < 0.63) return undefined;
    if (r < 0.8) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    return object(depth + 1);
  };
  const object = (depth: number): Record<string, unknown> => {
    // Names in a random order, so one set of members comes in many orders under one first name.
    const names = [...NAMES].sort(() => next() - 0.5).slice(0, Math.floor(next() * 8));
    const out: Record<string, unknown> = {};
    for (const name of names) {
      const member = value(depth);
      if (name === "__proto__") Object.defineProperty(out, name, { value: member, enumerable: true });
      else out[name] = member;
    }
    return out;
  };
  return { object, string };
}

describe("RFC 8785 text of generated events", () => {
  const inputs = fuzzInputsPerTarget();

  it("is what the canonicalize package writes, whatever the strings, numbers and member orders", () => {
    const { object } = generator(8785);
    for (let i = 0; i < inputs; i += 1) {
      const event = object(0);
      assert.equal(rfc8785(event), canonicalize(event), JSON.stringify(event));
    }
  });

  it("writes each number of RFC 8785 Appendix B and JSON's edges as the canonicalize package does", () => {
    for (const n of NUMBERS) assert.equal(rfc8785({ n, list: [n] }), canonicalize({ n, list: [n] }));
  });

  it("writes a lone surrogate as U+FFFD wherever it sits in a string, and the rest as the package does", () => {
    const { string } = generator(55296);
    for (let i = 0; i < inputs; i += 1) {
      const value = `${string()}${i % 2 === 0 ? "\ud800" : "\udfff"}${string()}`;
      assert.equal(rfc8785({ value }), canonicalize({ value: value.replace(/\p{Cs}/gu, "\uFFFD") }));
    }
  });

  it("digests each generated event as SHA-256 of the previous digest and the package's text without chain_digest", () => {
    const { object } = generator(256);
    let previous = `sha256:${"0".repeat(64)}`;
    for (let i = 0; i < inputs; i += 1) {
      const event = { ...object(0), sequence: i + 1, chain_digest: previous };
      const { chain_digest: _own, ...content } = event;
      const expected = `sha256:${createHash("sha256")
        .update(previous + canonicalize(content), "utf8")
        .digest("hex")}`;
      assert.equal(chainDigest(previous, event), expected);
      previous = expected;
    }
  });
});
