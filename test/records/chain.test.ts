import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import canonicalize from "canonicalize";
import {
  canonicalAroundSequence,
  chainDigest,
  chainGenesis,
  rfc8785,
  UNANCHORED,
} from "../../src/records/index.js";
import { ROOT } from "../helpers/example.js";

/** RFC 8785 Appendix B: IEEE 754 doubles (hex) and the text JCS writes for each. */
const APPENDIX_B: readonly (readonly [string, string])[] = [
  ["0000000000000000", "0"],
  ["8000000000000000", "0"],
  ["0000000000000001", "5e-324"],
  ["8000000000000001", "-5e-324"],
  ["7fefffffffffffff", "1.7976931348623157e+308"],
  ["ffefffffffffffff", "-1.7976931348623157e+308"],
  ["4340000000000000", "9007199254740992"],
  ["c340000000000000", "-9007199254740992"],
  ["4430000000000000", "295147905179352830000"],
  ["44b52d02c7e14af5", "9.999999999999997e+22"],
  ["44b52d02c7e14af6", "1e+23"],
  ["44b52d02c7e14af7", "1.0000000000000001e+23"],
  ["444b1ae4d6e2ef4e", "999999999999999700000"],
  ["444b1ae4d6e2ef4f", "999999999999999900000"],
  ["444b1ae4d6e2ef50", "1e+21"],
  ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
  ["3eb0c6f7a0b5ed8d", "0.000001"],
  ["41b3de4355555553", "333333333.3333332"],
  ["41b3de4355555554", "333333333.33333325"],
  ["41b3de4355555555", "333333333.3333333"],
  ["41b3de4355555556", "333333333.3333334"],
  ["41b3de4355555557", "333333333.33333343"],
  ["becbf647612f3696", "-0.0000033333333333333333"],
  ["43143ff3c1cb0959", "1424953923781206.2"],
];

const sha = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

describe("RFC 8785 canonical JSON", () => {
  it("writes every number of RFC 8785 Appendix B as the RFC does, and refuses NaN and Infinity", () => {
    for (const [hex, text] of APPENDIX_B) {
      assert.equal(rfc8785(Buffer.from(hex, "hex").readDoubleBE(0)), text, hex);
    }
    assert.throws(() => rfc8785(Buffer.from("7fffffffffffffff", "hex").readDoubleBE(0)));
    assert.throws(() => rfc8785(Buffer.from("7ff0000000000000", "hex").readDoubleBE(0)));
  });

  it("writes RFC 8785's section 3.2.2 example as the RFC prints it", () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    assert.equal(
      rfc8785(input),
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it("orders members by UTF-16 code units as RFC 8785's section 3.2.3 example does", () => {
    const input = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    );
    assert.equal(
      rfc8785(input),
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it("writes what the canonicalize package (a maintained RFC 8785 implementation) writes", () => {
    const golden = readFileSync(join(ROOT, "test", "fixtures", "golden", "history-v1.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as unknown);
    const odd = [
      { "10": 1, "2": 2, "1": [3, { b: null, a: -0 }], "\u20ac": 1e21, é: 1e-7, "": '\u0000\u001f"\\' },
      [undefined, { toJSON: () => ({ z: 1, y: [true, false] }) }],
      { skipped: undefined, nested: { deep: [[[{ x: 0.1 + 0.2 }]]] }, big: 2 ** 60, small: -5e-324 },
      "plain",
      12.5,
      null,
    ];
    for (const value of [...golden, ...odd]) assert.equal(rfc8785(value), canonicalize(value));
  });

  it("digests a string with a lone surrogate as if it were U+FFFD, so every stored event has a digest", () => {
    assert.equal(rfc8785({ a: "x\ud800y" }), '{"a":"x\uFFFDy"}');
  });
});

describe("the history chain", () => {
  it("starts from the digest of the anchor and the participant, and links each event after the previous digest", () => {
    const anchor = { scenario_digest: "sha256:s", manifest_digest: "sha256:m" };
    const genesis = chainGenesis("p", anchor);
    assert.equal(
      genesis,
      sha('{"manifest_digest":"sha256:m","participant_address":"p","scenario_digest":"sha256:s"}'),
    );
    assert.equal(
      chainGenesis("p", UNANCHORED),
      sha('{"manifest_digest":null,"participant_address":"p","scenario_digest":null}'),
    );
    const event = { sequence: 7, participant_address: "p", chain_digest: "ignored", b: [1.5, "é"] };
    assert.equal(
      chainDigest(genesis, event),
      sha(`${genesis}{"b":[1.5,"é"],"participant_address":"p","sequence":7}`),
    );
  });

  it("splits an event's canonical text around its sequence, for a store that assigns sequences in SQL", () => {
    const drafts = [
      { participant_address: "p", event_type: "x", z: { sequence: "\u0000" }, a: [null, 1e21] },
      { zzz: 1 },
      { aaa: "only before" },
      { "\u20ac": "after, by code unit", seq: 1, sequencf: 2 },
    ];
    for (const draft of drafts) {
      const [before, after] = canonicalAroundSequence(draft);
      for (const sequence of [1, 42, 9007199254740991]) {
        assert.equal(`${before}${sequence}${after}`, rfc8785({ ...draft, sequence }));
      }
    }
  });
});
