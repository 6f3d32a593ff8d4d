import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { COMPILED, compiledModule } from "../../../scripts/timeline-page.js";

describe("the page's compiled browser code", () => {
  it("is what the browser files compile to now (else run `npm run timeline-page`)", () => {
    assert.equal(
      readFileSync(COMPILED, "utf8"),
      compiledModule(),
      "src/timeline/page/compiled.ts is out of date",
    );
  });
});
