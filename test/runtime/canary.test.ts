import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { callTool, type Harness, HarnessRuntime, ToolTimeoutError } from "../../examples/seed-harness.js";
import { RuntimeManager } from "../../src/index.js";
import { EXAMPLE, exampleManifest, modelStartingAt } from "../helpers/example.js";
import { adminQuery, freshSchema, postgresAvailable } from "../store/pg-available.js";

/** Every spelling of a secret a careless store might keep. */
function spellings(secret: string): Buffer[] {
  const bare = secret.replaceAll("-", "");
  return [secret, secret.toUpperCase(), bare, bare.toUpperCase()].flatMap((s) => [
    Buffer.from(s, "utf8"),
    Buffer.from(s, "utf16le"),
  ]);
}

const holds = (bytes: Buffer, secret: string) => spellings(secret).some((s) => bytes.includes(s));

/**
 * Runs the example through the seed harness with tool arguments carrying `marker`: one call
 * succeeds, one fails, one times out (indeterminate). `control` goes into the MCP request id, which
 * RAES does record, so finding it proves the scan below reads what the store wrote.
 */
async function runWithCanary(store: string, marker: string, control: string) {
  const received: unknown[] = [];
  let invocation = 0;
  const harness: Harness = {
    async run(request, port) {
      assert.ok(port, "the example claims the composition, so every invocation has a port");
      invocation += 1;
      const args = { username: `svc-${marker}`, password: `pw:${marker}`, query: { note: marker } };
      const tool = (behave: "ok" | "fail" | "timeout") => async () => {
        received.push(structuredClone(args));
        if (behave === "timeout") throw new ToolTimeoutError(`portal did not answer for ${args.username}`);
        return behave === "ok" && args.password.endsWith(marker);
      };
      const plan = invocation === 1 ? (["ok", "fail"] as const) : (["timeout"] as const);
      const results: string[] = [];
      for (const [i, behave] of plan.entries()) {
        results.push(await callTool(port, `mcp-${control}-${request.ordinal}-${i}`, tool(behave)));
      }
      return { status: results.every((r) => r === "succeeded") ? "succeeded" : "partial_success" };
    },
  };
  const manager = await RuntimeManager.open({
    model: modelStartingAt(10, 10),
    manifest: exampleManifest(),
    runtime: new HarnessRuntime(harness),
    store,
  });
  const first = await manager.step();
  const second = await manager.step();
  assert.deepEqual(
    [...first.invocations, ...second.invocations].flatMap((s) => s.toolActions.map((a) => a.settlement)),
    ["succeeded", "failed", "indeterminate"],
  );
  assert.equal(manager.schedulers()[0]?.stopReason, "tool_action_indeterminate");
  assert.equal(received.length, 3);
  assert.ok(
    received.every((a) => JSON.stringify(a).includes(marker)),
    "the tool received its arguments",
  );
  const views = JSON.stringify([
    await manager.history(),
    await manager.history({ participant: EXAMPLE.participant }),
    ...(await Promise.all(
      [...first.invocations, ...second.invocations].flatMap((s) => [
        manager.getOperation(s.invocationId),
        ...s.toolActions.map((a) => manager.getOperation(a.id)),
      ]),
    )),
  ]);
  assert.ok(!views.includes(marker), "history or an operation carries a tool argument");
  assert.ok(views.includes(control), "the views show the tool call ids");
  return manager;
}

describe("canary: tool arguments never reach the control plane", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-canary-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("SQLite: the marker is in no byte of the database, its WAL or its shared-memory file", async () => {
    const marker = randomUUID();
    const control = randomUUID();
    const file = join(dir, "canary.db");
    const manager = await runWithCanary(`sqlite:${file}`, marker, control);
    const files = () => [file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f));
    const scan = () => {
      const bytes = Buffer.concat(files().map((f) => readFileSync(f)));
      assert.ok(holds(bytes, control), `the scan of ${files().join(", ")} must see what the store wrote`);
      assert.ok(!holds(bytes, marker), `a tool argument was written to ${files().join(", ")}`);
    };
    assert.ok(files().includes(`${file}-wal`), "scanned while the WAL is live");
    scan();
    await manager.close();
    scan();
  });

  it("PostgreSQL: the marker is in no row of any table of the schema", async (t) => {
    if (!(await postgresAvailable("canary on PostgreSQL"))) {
      t.skip("POSTGRES UNAVAILABLE");
      return;
    }
    const marker = randomUUID();
    const control = randomUUID();
    const { schema, url, drop } = freshSchema("raes_canary");
    try {
      const manager = await runWithCanary(url, marker, control);
      await manager.close();
      const tables = await adminQuery<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
        [schema],
      );
      assert.ok(tables.some((t) => t.table_name === "tool_actions"));
      let text = "";
      for (const { table_name } of tables) {
        const rows = await adminQuery<{ row: string }>(
          `SELECT t::text AS row FROM ${schema}."${table_name}" t`,
        );
        text += rows.map((r) => r.row).join("\n");
      }
      const bytes = Buffer.from(text, "utf8");
      assert.ok(holds(bytes, control), "the scan must see what the store wrote");
      assert.ok(!holds(bytes, marker), "a tool argument was written to a table");
    } finally {
      await drop();
    }
  });
});
