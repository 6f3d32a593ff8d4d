import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { approveToolAction, denyToolAction, listOperatorWaits } from "../../src/operations/index.js";
import { type ControlPlaneStore, openControlPlaneStore } from "../../src/store/index.js";
import { raes } from "../cli/cli.js";
import { agentRunArgs, LIVE, nodeTs, upstreamCalls } from "../fixtures/live/agent-run.js";
import { liveScenario } from "../fixtures/live/scenario.js";
import { manifestWithTimeout } from "../helpers/live-model.js";

/** The id of the call held for approval, once `raes run`'s gateway has written it. */
async function held(store: ControlPlaneStore): Promise<string> {
  for (let round = 0; round < 2400; round += 1) {
    const wait = (await listOperatorWaits(store, { limit: 1 })).find((w) => w.need === "pending_approval");
    if (wait) return wait.entry.id;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("no call was held for approval");
}

describe("raes run --agent-command with a map that holds calls for approval (gateway over the port socket)", () => {
  let dir = "";
  let scenario = "";
  let manifest = "";
  let map = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-agent-approval-"));
    scenario = liveScenario(dir);
    manifest = join(dir, "manifest.json");
    writeFileSync(manifest, JSON.stringify(manifestWithTimeout(600)));
    map = join(dir, "map.yaml");
    writeFileSync(
      map,
      readFileSync(join(LIVE, "map.yaml"), "utf8").replace(
        "evidence_refs: [content.participant-observation]\n",
        "evidence_refs: [content.participant-observation]\n    approval: required\n",
      ),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const decision of ["approve", "deny"] as const) {
    it(`${decision}: the agent's held echo ${decision === "approve" ? "reaches the upstream exactly once" : "never reaches the upstream"}`, async () => {
      const countFile = join(dir, `${decision}.count`);
      const url = `sqlite:${join(dir, `${decision}.db`)}`;
      const store = await openControlPlaneStore(url);
      try {
        const running = raes(
          [
            ...agentRunArgs({
              scenario,
              manifest,
              agent: nodeTs(join(LIVE, "sdk-agent.ts")),
              countFile,
              map,
              logs: join(dir, `${decision}-logs`),
              store: url,
            }),
            "--json",
          ],
          { env: { AGENT_SCRIPT: "echo:one" } },
        );
        const id = await held(store);
        assert.deepEqual(upstreamCalls(countFile), [], "held: not dispatched");
        const decide = decision === "approve" ? approveToolAction : denyToolAction;
        assert.equal(
          (await decide(store, id, { operator: "white-cell" })).outcome,
          `${decision === "approve" ? "approved" : "denied"}`,
        );
        const r = await running;
        assert.equal(r.code, 0, r.stderr);
        const summary = JSON.parse(r.stdout);
        if (decision === "approve") {
          assert.deepEqual(summary.tool_actions, { succeeded: 1 });
          assert.deepEqual(upstreamCalls(countFile), ["echo"]);
        } else {
          assert.deepEqual(summary.tool_actions, { withheld: 1 });
          assert.deepEqual(upstreamCalls(countFile), []);
          assert.equal((await store.getToolAction(id))?.withheldReason, "approval_denied");
        }
        assert.equal((await store.getToolAction(id))?.approval?.operator, "white-cell");
      } finally {
        await store.close();
      }
    });
  }
});
