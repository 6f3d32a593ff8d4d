import assert from "node:assert/strict";
import { test } from "node:test";
import { toolActionAt } from "../../src/records/index.js";
import { toolActionChange } from "../../src/store/postgres/rows.js";
import { invocation, toolAction } from "./records.js";

test("a PostgreSQL tool-action update writes only the columns its step sets", () => {
  const claimed = toolAction(invocation(), 1, { phase: "admitted" });
  const dispatched = toolActionAt(claimed, { phase: "dispatched" }, "2026-12-01T10:00:00.000001Z");
  const dispatch = toolActionChange(dispatched);
  assert.equal(dispatch.key, "phase,dispatched_at,updated_at");
  assert.deepEqual(dispatch.values, [
    claimed.id,
    "dispatched",
    dispatched.dispatchedAt,
    dispatched.updatedAt,
  ]);
  const failed = {
    ...toolActionAt(dispatched, { phase: "settled", settlement: "failed" }, "2026-12-01T10:00:00.000002Z"),
    failureClass: "timeout",
    evidenceRefs: ["evidence:a"],
  };
  const settle = toolActionChange(failed);
  assert.equal(
    settle.key,
    "phase,settlement,failure_class,evidence_refs,dispatched_at,settled_at,updated_at",
  );
  assert.equal(settle.values[4], JSON.stringify(["evidence:a"]), "json columns go as JSON text");
});
