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
