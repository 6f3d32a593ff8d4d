import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "./helpers/example.js";

const SHARED = join(ROOT, "..", "shared");
const COPIES: Record<string, string> = {
  "examples/enterprise-participant-evidence-loop.sdl.yaml":
    "examples/enterprise-participant-evidence-loop.sdl.yaml",
  "examples/harness-backend.manifest.json": "examples/harness-backend.manifest.json",
  "test/fixtures/conformance/port-vectors.json": "conformance/port-vectors.json",
};

describe("vendored copies of the shared RAES material", () => {
  for (const [copy, original] of Object.entries(COPIES)) {
    it(`${copy} is byte-identical to shared/${original}`, {
      skip: !existsSync(SHARED) && "no ../shared here",
    }, () => {
      assert.equal(readFileSync(join(ROOT, copy), "utf8"), readFileSync(join(SHARED, original), "utf8"));
    });
  }
});
