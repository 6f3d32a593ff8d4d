import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { RuntimeManager } from "../../../src/index.js";
import type { ToolActionRecord } from "../../../src/store/index.js";
import { SqliteControlPlaneStore } from "../../../src/store/sqlite/index.js";
import { readStoreState } from "../../crash/store-state.js";
import { ChildScript } from "../../helpers/child-process.js";
import { exampleManifest, modelWithParticipants, ROOT } from "../../helpers/example.js";
import { SleepingToolRuntime } from "../../helpers/sleeping-tool-runtime.js";

const CHILD = join(ROOT, "test", "helpers", "child-group-commit.ts");
const PARTICIPANTS = 16;
/** Acknowledged writes to wait for after the second step, so the kill lands inside a step. */
const ACKS_INTO_STEP = 30;

/** The restart rules of a lone writer: admitted → withheld, dispatched → indeterminate, a settlement stays. */
function restartSettlement(action: ToolActionRecord): string | undefined {
  if (action.phase === "admitted") return "withheld";
  if (action.phase === "dispatched") return "indeterminate";
  return action.settlement;
}

function manifest(): Record<string, unknown> {
  const m = exampleManifest();
  m.participant_runtime.max_autonomous_participants = PARTICIPANTS;
  m.participant_runtime.max_autonomous_in_flight = PARTICIPANTS;
  return m;
}

describe("SQLite group commit under SIGKILL", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-group-commit-crash-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("every write acknowledged to a killed child running concurrent invocations is on disk, and recovery follows the lone-writer rules", async () => {
    const file = join(dir, "control-plane.db");
    const child = ChildScript.start(CHILD, [file, String(PARTICIPANTS)]);
    try {
      const second = await child.waitFor(
        (line, i) => line.startsWith("STEP") && child.lines.slice(0, i).some((l) => l.startsWith("STEP")),
        0,
        "a second STEP",
      );
      let acks = 0;
      await child.waitFor(
        (line) => line.startsWith("FAILED") || (line.startsWith("ACK ") && ++acks >= ACKS_INTO_STEP),
        second.index + 1,
        `${ACKS_INTO_STEP} acknowledgements into a step`,
      );
    } finally {
      await child.stop();
    }
    const exit = await child.exited;
    assert.equal(exit.signal, "SIGKILL", `the child must die by SIGKILL\n${child.stderr}`);
    const lines = [...child.lines];
    assert.ok(
      !lines.some((l) => l.startsWith("FAILED")),
      lines.find((l) => l.startsWith("FAILED")),
    );
    const [, writes, commits] = (lines.find((l) => l.startsWith("STEP")) ?? "").split(" ").map(Number);
    assert.ok(
      (commits as number) < (writes as number),
      `the child's writes shared commits (${writes} writes, ${commits} commits)`,
    );

    const raw = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
    const before = await readStoreState(raw).finally(() => raw.close());
    const invocation = new Map(before.invocations.map((i) => [i.id, i]));
    const action = new Map(before.toolActions.map((a) => [a.id, a]));
    for (const line of lines.filter((l) => l.startsWith("ACK "))) {
      const [, write, id = ""] = line.split(" ");
      if (write === "open") assert.ok(invocation.has(id), `acknowledged ${line} was lost`);
      if (write === "close") assert.notEqual(invocation.get(id)?.state, "running", `${line} was lost`);
      if (write === "claim") assert.ok(action.has(id), `acknowledged ${line} was lost`);
      if (write === "dispatched")
        assert.ok(["dispatched", "settled"].includes(action.get(id)?.phase ?? ""), `${line} was lost`);
      if (write === "settled") assert.equal(action.get(id)?.phase, "settled", `${line} was lost`);
    }

    const reopen = () =>
      RuntimeManager.open({
        model: modelWithParticipants(PARTICIPANTS, 1_000),
        manifest: manifest(),
        runtime: new SleepingToolRuntime(0),
        store: `sqlite:${file}`,
        ownerId: "group-commit-crash",
      });
    let manager = await reopen();
    try {
      const recovered = await readStoreState(manager.store);
      const interrupted = before.invocations.filter((i) => i.state === "running");
      for (const old of interrupted) {
        const now = recovered.invocations.find((i) => i.id === old.id);
        assert.notEqual(now?.state, "running", `${old.id} stayed running after recovery`);
      }
      for (const old of before.toolActions.filter((a) => interrupted.some((i) => i.id === a.invocationId))) {
        const now = recovered.toolActions.find((a) => a.id === old.id);
        assert.equal(now?.phase, "settled", `${old.id} was not settled by recovery`);
        assert.equal(now?.settlement, restartSettlement(old), `${old.id} from ${old.phase}`);
      }
      await manager.close();
      manager = await reopen();
      assert.deepEqual(await readStoreState(manager.store), recovered, "a second restart changed the store");
    } finally {
      await manager.close();
    }
  });
});
