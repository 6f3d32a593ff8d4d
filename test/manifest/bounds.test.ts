import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_DIAGNOSTICS_PER_CODE } from "../../src/input/index.js";
import { ManifestDiagnosticCode as Code, checkManifest } from "../../src/manifest/index.js";
import { editedExample } from "./fixtures.js";

/** How many diagnostics of each code a check reported. */
function countByCode(check: ReturnType<typeof checkManifest>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of check.diagnostics) counts.set(d.code, (counts.get(d.code) ?? 0) + 1);
  return counts;
}

describe("a manifest that repeats one mistake gets a bounded report", () => {
  it("one execution binding copied 1 000 times: at most 20 lines of each code, then 'and N more'", () => {
    const document = editedExample((m) => {
      const offer = m.participant_runtime.execution_bindings[0];
      m.participant_runtime.execution_bindings = Array.from({ length: 1_000 }, () => offer);
    });
    const text = JSON.stringify(document);
    assert.ok(text.length < 1_000_000, `${text.length} bytes`);
    const check = checkManifest(text);
    assert.equal(check.ok, false);
    const counts = countByCode(check);
    for (const [code, count] of counts) assert.ok(count <= MAX_DIAGNOSTICS_PER_CODE + 1, `${code}: ${count}`);
    for (const code of [Code.duplicate_value, Code.offers_overlap]) {
      const ofCode = check.diagnostics.filter((d) => d.code === code);
      assert.equal(ofCode.length, MAX_DIAGNOSTICS_PER_CODE + 1, code);
      assert.match(ofCode.at(-1)?.message ?? "", /^and \d+ more$/, code);
    }
    // 999 copies overlap an earlier one: 20 are listed and 979 counted.
    assert.equal(
      check.diagnostics.filter((d) => d.code === Code.offers_overlap).at(-1)?.message,
      "and 979 more",
    );
  });
});

describe("the overlap check is not quadratic in the offers", () => {
  it("9 000 offers on one target within the 1 MB bound: one warning per later offer, where pairs would be 40 million", () => {
    const count = 9_000;
    // Offers cut to the fields the overlap check reads, so 9 000 of them fit the bound of a 1 MB file.
    const document = editedExample((m) => {
      m.participant_runtime.execution_bindings = Array.from({ length: count }, (_, index) => ({
        binding_id: `o${index}`,
        action_contract_address: "a.b",
        participant_implementation_ref: "i",
        target_addresses: ["a.c"],
      }));
    });
    const check = checkManifest(document);
    const overlaps = check.diagnostics.filter((d) => d.code === Code.offers_overlap);
    assert.equal(overlaps.length, MAX_DIAGNOSTICS_PER_CODE + 1);
    assert.equal(overlaps.at(-1)?.message, `and ${count - 1 - MAX_DIAGNOSTICS_PER_CODE} more`);
    assert.equal(overlaps[0]?.path, "/participant_runtime/execution_bindings/1");
    assert.match(overlaps[0]?.message ?? "", /^offer 'o1' and offer 'o0' both cover a\.b on a\.c;/);
    assert.match(overlaps[1]?.message ?? "", /^offer 'o2' and offer 'o0' both cover/);
  });
});

describe("checkManifest bounds a parsed value before any work", () => {
  it("a 3.5 MB manifest value is one manifest.value-too-large error", () => {
    const document = editedExample((m) => {
      const offer = m.participant_runtime.execution_bindings[0];
      m.participant_runtime.execution_bindings = Array.from({ length: 4_400 }, () => offer);
    });
    const check = checkManifest(document);
    assert.equal(check.ok, false);
    assert.deepEqual(
      check.diagnostics.map((d) => [d.code, d.path]),
      [[Code.value_too_large, ""]],
    );
    assert.match(check.diagnostics[0]?.message ?? "", /^the manifest is larger than 1000000/);
  });
});

/** `count` distinct three-character strings from a 64-character alphabet (up to 262 144). */
function shortStrings(count: number): string[] {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
  return Array.from({ length: count }, (_, n) =>
    [n >> 12, (n >> 6) & 63, n & 63].map((digit) => alphabet[digit]).join(""),
  );
}

describe("a claim listing 160 000 semantic versions is checked in linear time and reported in bounded form", () => {
  it("160 000 distinct versions and 50 repeats: one capped report per code, each repeat found", () => {
    const versions = shortStrings(160_000);
    versions.push(...versions.slice(0, 50));
    const document = editedExample((m) => {
      m.participant_runtime.invocation_tool_actions.semantic_versions = versions;
    });
    // A spread of all 160 050 diagnostics into push() overflowed the stack; indexOf per version was quadratic.
    const check = checkManifest(document);
    assert.equal(check.ok, false);
    const counts = countByCode(check);
    for (const [code, count] of counts) assert.ok(count <= MAX_DIAGNOSTICS_PER_CODE + 1, `${code}: ${count}`);
    const unknown = check.diagnostics.filter((d) => d.code === Code.claim_version_unknown);
    assert.equal(unknown.at(-1)?.message, `and ${160_000 - MAX_DIAGNOSTICS_PER_CODE} more`);
    const twice = check.diagnostics.filter((d) => d.code === Code.duplicate_value);
    assert.equal(twice.length, MAX_DIAGNOSTICS_PER_CODE + 1);
    assert.equal(twice[0]?.path, "/participant_runtime/invocation_tool_actions/semantic_versions/160000");
    assert.equal(twice.at(-1)?.message, `and ${50 - MAX_DIAGNOSTICS_PER_CODE} more`);
    assert.equal(counts.get(Code.claim_version_missing), 1);
  });
});

describe("a time capability list of 160 000 values gets a bounded message", () => {
  it("unknown values: the first 20 are named and the rest counted", () => {
    const kinds = shortStrings(160_000);
    const check = checkManifest(editedExample((m) => (m.time = { supported_domain_kinds: kinds })));
    const [problem] = check.diagnostics.filter((d) => /supported_domain_kinds/.test(d.message));
    assert.ok(problem !== undefined);
    assert.match(problem.message, /contains unknown values: .* and 159980 more$/);
    assert.ok(problem.message.length < 500, `${problem.message.length} characters`);
  });

  it("repeated values: found with a set, named once each, capped", () => {
    const kinds = shortStrings(80_000);
    kinds.push(...kinds);
    const check = checkManifest(editedExample((m) => (m.time = { supported_domain_kinds: kinds })));
    const [problem] = check.diagnostics.filter((d) => /supported_domain_kinds/.test(d.message));
    assert.match(problem?.message ?? "", /must not contain duplicate values: .* and 79980 more$/);
    assert.ok((problem?.message.length ?? 0) < 500);
  });
});
