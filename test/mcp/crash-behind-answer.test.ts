import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { RuntimeManager } from "../../src/index.js";
import { ChildScript } from "../helpers/child-process.js";
import { exampleManifest, modelStartingAt, ROOT } from "../helpers/example.js";
import { ScriptedRuntime } from "../port/support/invocation.js";

const CHILD = join(ROOT, "test", "mcp", "fixtures", "crash-behind-answer.ts");
const OWNER = "gateway-crash-test";

it("a crash after the client has its answer but before the outcome commits leaves the action indeterminate after recovery", async () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-gw-crash-"));
  const url = `sqlite:${join(dir, "cp.db")}`;
  try {
    const child = ChildScript.start(CHILD, [url, OWNER]);
    let invocation: string;
    try {
      invocation = (await child.waitForPrefix("INVOCATION ")).line.slice("INVOCATION ".length);
      // The answer reached the client although the outcome never committed: that is the window.
      await child.waitForPrefix("ANSWERED ok");
      await child.waitForPrefix("SETTLING");
    } finally {
      await child.stop();
    }
    assert.equal((await child.exited).signal, "SIGKILL");

    const manager = await RuntimeManager.open({
      model: modelStartingAt(10),
      manifest: exampleManifest(),
      runtime: new ScriptedRuntime(() => Promise.reject(new Error("no invocation may run"))),
      store: url,
      ownerId: OWNER,
    });
    try {
      const actions = await manager.store.listToolActions({ invocationId: invocation });
      assert.deepEqual(
        actions.map((a) => [a.id, a.phase, a.settlement]),
        [[`${invocation}:tool=1`, "settled", "indeterminate"]],
      );
      assert.equal((await manager.getOperation(`${invocation}:tool=1`))?.state, "indeterminate");
      assert.equal(
        manager.schedulers().some((s) => s.lifecycle === "stopped"),
        true,
        "an indeterminate tool action stops its participant's scheduler",
      );
    } finally {
      await manager.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
