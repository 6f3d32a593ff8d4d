import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CopyRows, copyCell, copyJsonCell } from "../../src/store/postgres/copy.js";

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

/** The bytes of every chunk taken, in order, as one buffer. */
const joined = (chunks: readonly Buffer[]) => Buffer.concat(chunks);

describe("COPY rows held for a COPY", () => {
  // Multi-byte text (two, three and four UTF-8 bytes) and a lone surrogate, which UTF-8 writes as U+FFFD.
  const rows = Array.from({ length: 3000 }, (_, i) => `${i}\tp\u00e9rson-\u20ac-\ud83d\ude00-\ud800\t${"x".repeat(i % 997)}`);

  it("hands back each row's UTF-8 and its newline, in order, across chunk boundaries", () => {
    const copy = new CopyRows();
    const taken: Buffer[] = [];
    for (const [i, row] of rows.entries()) {
      copy.add(row);
      if (i % 500 === 0) taken.push(...copy.take());
    }
    taken.push(...copy.take(true));
    assert.ok(taken.length > 1, "more than one chunk");
    assert.equal(copy.rows, rows.length);
    assert.deepEqual(joined(taken), Buffer.from(rows.map((r) => `${r}\n`).join(""), "utf8"));
  });

  it("counts what it holds in bytes, not characters", () => {
    const copy = new CopyRows();
    copy.add("\u20ac\u20ac");
    copy.add("\ud83d\ude00");
    assert.equal(copy.buffered, 6 + 1 + 4 + 1);
    assert.equal(joined(copy.take(true)).length, 12);
    assert.equal(copy.buffered, 0);
  });

  it("keeps the partial chunk until asked for all, and takes a row larger than a chunk whole", () => {
    const copy = new CopyRows();
    copy.add("first");
    assert.deepEqual(copy.take(), []);
    const large = "\u00e9".repeat(1 << 20);
    copy.add(large);
    copy.add("last");
    assert.deepEqual(joined(copy.take(true)), Buffer.from(`first\n${large}\nlast\n`, "utf8"));
    assert.deepEqual(copy.take(true), []);
  });
});
