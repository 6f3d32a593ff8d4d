import assert from "node:assert/strict";
import { test } from "node:test";
import { isoMicros } from "../../../src/runtime/clock/index.js";

test("isoMicros writes microsecond ISO-8601 UTC across second, year and epoch boundaries", () => {
  const cases: [number, string][] = [
    [0, "1970-01-01T00:00:00.000000Z"],
    [999.9996, "1970-01-01T00:00:00.999999Z"],
    [1000, "1970-01-01T00:00:01.000000Z"],
    [1764567890123.457, "2025-12-01T05:44:50.123457Z"],
    [1764567890999.5, "2025-12-01T05:44:50.999500Z"],
    [1764567891000.25, "2025-12-01T05:44:51.000250Z"],
    [-0.5, "1969-12-31T23:59:59.999500Z"],
    [-1000.25, "1969-12-31T23:59:58.999750Z"],
    [253402300800000.25, "+010000-01-01T00:00:00.000250Z"],
  ];
  // Twice over, in and out of order: a reading formats the same whatever came before it.
  for (const [ms, iso] of [...cases, ...cases.reverse()]) assert.equal(isoMicros(ms), iso, String(ms));
});
