import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { copyCell, copyJsonCell } from "../../src/store/postgres/copy.js";

// Strings a history body can hold: COPY's four special characters, JSON's escapes, controls, quotes,
// lone and paired surrogates, and nothing special at all.
const VALUES: readonly unknown[] = [
  "plain",
  "a\\b",
  "line\nbreak\r\ttab",
  "\\n is not a newline",
  'quote " and \\" and \\\\',
  "\u0000\u0001\u001f\u007f",
  "\ud800 lone, \ud83d\ude00 paired",
  { path: "C:\\temp\\new", lines: ["a\nb", "c\td"], nested: { deep: "\\\\server\\share" } },
  [1, 2.5, null, true, "x\\y"],
  "",
];

describe("the COPY cell of a history body", () => {
  it("escapes JSON text exactly as the general cell does", () => {
    for (const value of VALUES) {
      const json = JSON.stringify(value);
      assert.equal(copyJsonCell(json), copyCell(json), json);
    }
  });

  it("returns JSON text without a backslash as it is", () => {
    const json = JSON.stringify({ a: "b", n: [1, 2] });
    assert.equal(copyJsonCell(json), json);
  });

  it("doubles every backslash, so COPY reads the JSON text back", () => {
    assert.equal(copyJsonCell(JSON.stringify("a\\b\n")), '"a\\\\\\\\b\\\\n"');
  });
});
