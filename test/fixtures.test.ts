import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { isCi } from "./helpers/ci.js";
import { ROOT } from "./helpers/example.js";

/** The shared RAES material: beside the repository, as in CI, or where RAES_SHARED points. */
const SHARED = process.env.RAES_SHARED ?? join(ROOT, "..", "shared");
const COPIES: Record<string, string> = {
  "examples/enterprise-participant-evidence-loop.sdl.yaml":
    "examples/enterprise-participant-evidence-loop.sdl.yaml",
  "examples/harness-backend.manifest.json": "examples/harness-backend.manifest.json",
  "test/fixtures/conformance/port-vectors.json": "conformance/port-vectors.json",
  "examples/enterprise-participant-activity-v2.sdl.yaml":
    "examples/enterprise-participant-activity-v2.sdl.yaml",
  "examples/harness-backend-v2.manifest.json": "examples/harness-backend-v2.manifest.json",
  "test/fixtures/conformance/random-stream/blake3-xof-v1/basic-address-and-block.json":
    "conformance/random-stream/blake3-xof-v1/basic-address-and-block.json",
  "test/fixtures/conformance/random-stream/blake3-xof-v1/bounded-integer-basic-draw.json":
    "conformance/random-stream/blake3-xof-v1/bounded-integer-basic-draw.json",
  "test/fixtures/conformance/random-stream/blake3-xof-v1/bounded-integer-boundary-single-value.json":
    "conformance/random-stream/blake3-xof-v1/bounded-integer-boundary-single-value.json",
  "test/fixtures/conformance/random-stream/blake3-xof-v1/bounded-integer-exhaustion.json":
    "conformance/random-stream/blake3-xof-v1/bounded-integer-exhaustion.json",
  "test/fixtures/conformance/random-stream/blake3-xof-v1/bounded-integer-rejection-then-accept.json":
    "conformance/random-stream/blake3-xof-v1/bounded-integer-rejection-then-accept.json",
  "test/fixtures/conformance/random-stream/blake3-xof-v1/zero-heavy-seed-and-address.json":
    "conformance/random-stream/blake3-xof-v1/zero-heavy-seed-and-address.json",
  "test/fixtures/conformance/random-stream/blake3-xof-participant-v1/participant-occurrence-bounded-draw.json":
    "conformance/random-stream/blake3-xof-participant-v1/participant-occurrence-bounded-draw.json",
  "test/fixtures/conformance/v2/raes-v2-history-first-5-steps.json":
    "conformance/v2/raes-v2-history-first-5-steps.json",
  "test/fixtures/conformance/v2/trace-seed42-fail3.jsonl": "conformance/v2/trace-seed42-fail3.jsonl",
  "test/fixtures/conformance/v2/trace-seed42-fail3.summary.json":
    "conformance/v2/trace-seed42-fail3.summary.json",
};

describe("vendored copies of the shared RAES material", () => {
  for (const [copy, original] of Object.entries(COPIES)) {
    // Under CI there is no skip: a missing ../shared fails the comparison below.
    it(`${copy} is byte-identical to shared/${original}`, {
      skip: !existsSync(SHARED) && !isCi() && `no ${SHARED} here (set RAES_SHARED)`,
    }, () => {
      assert.ok(existsSync(SHARED), `${SHARED} is missing, and CI must compare the vendored copies`);
      assert.equal(readFileSync(join(ROOT, copy), "utf8"), readFileSync(join(SHARED, original), "utf8"));
    });
  }
});
