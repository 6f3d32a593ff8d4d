import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runScriptedTimes, SCRIPTED_TIMES as T } from "./record-times.js";

const INVOCATION =
  "participant.autonomous-execution.participant-behavior:participant.behavior.participant-agent:0";

describe("record times (docs/design.md §7, §10): the instant each thing happened, from the injected clock", () => {
  for (const kind of ["memory", "sqlite"] as const) {
    it(`stores invocation start/end and tool-action admission, dispatch and settlement (${kind})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "raes-times-"));
      try {
        const manager = await runScriptedTimes(
          kind === "sqlite" ? `sqlite:${join(dir, "cp.db")}` : undefined,
        );
        try {
          const outer = await manager.getOperation(INVOCATION);
          assert.equal(outer?.state, "succeeded");
          assert.deepEqual([outer?.startedAt, outer?.endedAt], [T.started, T.ended]);
          const a = await manager.getOperation(`${INVOCATION}:tool=1`);
          assert.deepEqual(
            [a?.settlement, a?.admittedAt, a?.dispatchedAt, a?.settledAt],
            ["succeeded", T.aAdmitted, T.aDispatched, T.aSettled],
          );
          const b = await manager.getOperation(`${INVOCATION}:tool=2`);
          assert.deepEqual(
            [b?.settlement, b?.admittedAt, b?.dispatchedAt, b?.settledAt],
            ["withheld", T.bAdmitted, undefined, T.bSettled],
          );
        } finally {
          await manager.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it("stamps each event when its thing happened: admission, dispatch (or settlement), settlement; start, end, end", async () => {
    const manager = await runScriptedTimes();
    try {
      const stamps = (await manager.history()).map((e) => [e.action_instance_id, e.timestamp]);
      assert.deepEqual(stamps, [
        [`${INVOCATION}:tool=1`, T.aAdmitted],
        [`${INVOCATION}:tool=1`, T.aDispatched],
        [`${INVOCATION}:tool=1`, T.aSettled],
        [`${INVOCATION}:tool=2`, T.bAdmitted],
        [`${INVOCATION}:tool=2`, T.bSettled],
        [`${INVOCATION}:tool=2`, T.bSettled],
        [INVOCATION, T.started],
        [INVOCATION, T.ended],
        [INVOCATION, T.ended],
      ]);
    } finally {
      await manager.close();
    }
  });
});
