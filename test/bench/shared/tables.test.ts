import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { printNote, printTable, takePrinted } from "../../../bench/shared/index.js";

describe("bench tables: what a suite prints is kept for the page", () => {
  it("keeps every table and note printed, in order, until they are taken", (t) => {
    const out: string[] = [];
    t.mock.method(process.stdout, "write", (chunk: string) => out.push(chunk) > 0);
    t.mock.method(console, "log", (text: string) => out.push(`${text}\n`));
    takePrinted();
    printTable("a title", ["case", "× floor"], [["real", "1.50"]]);
    printNote("\nthe floor is the same rows by hand");
    printNote("");
    const printed = takePrinted();
    t.mock.restoreAll();
    assert.deepEqual(printed, [
      { kind: "table", title: "a title", header: ["case", "× floor"], rows: [["real", "1.50"]] },
      { kind: "note", text: "the floor is the same rows by hand" },
    ]);
    assert.deepEqual(takePrinted(), [], "taking empties the list");
    assert.ok(
      out.join("").includes("a title\ncase  × floor\n----  -------\nreal     1.50\n"),
      "printed as before",
    );
  });
});
