import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { LOGIN_PATH, type PortalService, startPortalService } from "../../src/demo/index.js";
import { listOperatorWaits } from "../../src/operations/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { ROOT } from "../helpers/example.js";
import { freshSchema, postgresAvailable } from "../store/pg-available.js";

const MAIN = join(ROOT, "dist", "cli", "main.js");
const SERVER = join(ROOT, "dist", "demo", "server.js");
const SCENARIO = join(ROOT, "examples", "enterprise-participant-evidence-loop.sdl.yaml");
const MANIFEST = join(ROOT, "examples", "harness-backend.manifest.json");
const MAP = join(ROOT, "examples", "demo", "mcp-map.yaml");
const HELD_PATH = "/held-then-killed";

async function connect(store: string, map: string, portal: PortalService) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      MAIN,
      "mcp-gateway",
      "--scenario",
      SCENARIO,
      "--manifest",
      MANIFEST,
      "--map",
      map,
      "--store",
      store,
      "--",
      process.execPath,
      SERVER,
    ],
    env: { PATH: process.env.PATH ?? "", DEMO_PORTAL_URL: portal.url },
    stderr: "pipe",
  });
  const client = new Client({ name: "approval-recovery-test", version: "1.0.0" });
  const gone = new Promise<void>((resolve) => {
    client.onclose = () => resolve();
  });
  await client.connect(transport);
  return { client, transport, gone };
}

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`a gateway SIGKILLed while a call waits for approval (${kind} store)`, () => {
    let dir = "";
    let portal: PortalService;
    let skip = false;
    let drop: () => Promise<void> = async () => undefined;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "raes-approval-kill-"));
      portal = await startPortalService();
      if (kind === "postgres") skip = !(await postgresAvailable("approval recovery"));
    });
    after(async () => {
      await portal.close();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("leaves the held call withheld (approval_expired by the restart) after restart, never run; a late approve is refused", async (t) => {
      if (skip) return t.skip("PostgreSQL unavailable");
      let store = `sqlite:${join(dir, "killed.db")}`;
      if (kind === "postgres") {
        const schema = freshSchema("raes_approval_kill");
        store = schema.url;
        drop = schema.drop;
      }
      const held = join(dir, "held.yaml");
      writeFileSync(
        held,
        readFileSync(MAP, "utf8").replace(
          /(evidence_refs: \[content\.participant-observation\]\n)/,
          "$1    approval: required\n",
        ),
      );
      const reader = await openControlPlaneStore(store);
      try {
        const first = await connect(store, held, portal);
        const call = first.client
          .callTool({ name: "probe_login", arguments: { path: HELD_PATH } })
          .catch(() => undefined);
        let id: string | undefined;
        for (let round = 0; id === undefined && round < 1200; round += 1) {
          id = (await listOperatorWaits(reader, { limit: 1 }))[0]?.entry.id;
          if (id === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.ok(id, "the call was held");
        process.kill(first.transport.pid as number, "SIGKILL");
        await first.gone;
        await call;
        assert.equal(
          (await reader.getToolAction(id))?.approval?.state,
          "pending",
          "still pending while nobody runs",
        );

        // The restart recovers the interrupted session when it opens the participant.
        const second = await connect(store, MAP, portal);
        const next = (await second.client.callTool({
          name: "probe_login",
          arguments: { path: LOGIN_PATH },
        })) as CallToolResult;
        await second.client.close();
        // The example's failure_policy is stop: the attempt the kill consumed stops the scheduler.
        assert.equal(next._meta?.["raes/code"], "scheduler_stopped", JSON.stringify(next));

        const action = await reader.getToolAction(id);
        assert.deepEqual(
          [
            action?.settlement,
            action?.withheldReason,
            action?.dispatchedAt,
            action?.approval?.state,
            action?.approval?.expiredBy,
          ],
          ["withheld", "approval_expired", undefined, "expired", "restart"],
        );
        assert.ok(action?.recoveredAt, "recovery settled it");
        assert.equal(portal.requests()[HELD_PATH], undefined, "the held call never ran");
        assert.deepEqual(await listOperatorWaits(reader, { limit: 10 }), []);
        const late = await promisify(execFile)(process.execPath, [
          MAIN,
          "approve",
          id,
          "--store",
          store,
        ]).then(
          () => ({ code: 0, stderr: "" }),
          (error: { code: number; stderr: string }) => error,
        );
        assert.equal(late.code, 1);
        assert.match(late.stderr, /approval\.expired/);
      } finally {
        await reader.close();
      }
    });
  });
}
