import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { liveScenario } from "../fixtures/live/scenario.js";
import { ROOT } from "../helpers/example.js";
import { manifestWithTimeout } from "../helpers/live-model.js";
import { raes } from "./cli.js";

const LIVE = join(ROOT, "test", "fixtures", "live");
const TSX = import.meta.resolve("tsx");
const nodeTs = (file: string) => `${process.execPath} --import ${TSX} ${file}`;

describe("calls the MCP gateway refuses itself, through raes run --agent-command", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-gateway-refusals-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("are counted per code with the invocation's operation, shown by the timeline, and leave no history or tool action", async () => {
    const manifest = join(dir, "manifest.json");
    writeFileSync(manifest, JSON.stringify(manifestWithTimeout(600)));
    const store = `sqlite:${join(dir, "store.db")}`;
    const run = await raes(
      [
        "run",
        liveScenario(dir),
        "--manifest",
        manifest,
        "--agent-command",
        nodeTs(join(LIVE, "sdk-agent.ts")),
        "--mcp-upstream",
        `portal=${nodeTs(join(LIVE, "counting-upstream.ts"))}`,
        "--map",
        join(LIVE, "map.yaml"),
        "--agent-logs",
        join(dir, "logs"),
        "--store",
        store,
        "--steps",
        "1",
        "--json",
      ],
      { env: { AGENT_SCRIPT: "echo:hello,call:drop_tables,write_db,call:drop_tables" } },
    );
    assert.equal(run.code, 0, run.stderr);

    const listed = await raes(["operations", "--store", store, "--json"]);
    assert.equal(listed.code, 0, listed.stderr);
    const operations = (JSON.parse(listed.stdout) as { operations: Record<string, unknown>[] }).operations;
    const invocations = operations.filter((o) => o.kind === "scheduler_invocation");
    assert.equal(invocations.length, 1);
    // The gateway's two tool_not_mapped calls are counted beside the port's target_outside_binding.
    assert.deepEqual(invocations[0]?.refusals, { target_outside_binding: 1, tool_not_mapped: 2 });
    // Each refused call keeps its code, tool, the call refused and its time, in the order refused.
    const calls = invocations[0]?.refused_calls as { code: string; at: string; tool: string; call: string }[];
    assert.deepEqual(
      calls.map((c) => [c.code, c.tool, c.call]),
      [
        ["tool_not_mapped", "drop_tables", "gateway"],
        ["target_outside_binding", "write_db", "admit"],
        ["tool_not_mapped", "drop_tables", "gateway"],
      ],
    );
    for (const c of calls) assert.match(c.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(calls.every((c, k) => k === 0 || (calls[k - 1]?.at ?? "") <= c.at));
    // Only the mapped, admitted echo is a tool action; the refused calls have no record.
    assert.equal(operations.filter((o) => o.kind === "tool_action").length, 1);

    const html = join(dir, "timeline.html");
    const history = await raes(["history", "--store", store, "--html", html]);
    assert.equal(history.code, 0, history.stderr);
    const page = readFileSync(html, "utf8");
    assert.match(page, /data-refusal-code="tool_not_mapped" data-count="2"/);
    assert.match(page, /data-refusal-code="target_outside_binding" data-count="1"/);
    assert.ok(page.includes('"drop_tables"'), "the page names the refused tool");

    const events = await raes(["history", "--store", store, "--json"]);
    assert.equal(events.code, 0, events.stderr);
    assert.ok(!events.stdout.includes("drop_tables"), "a refused call left a trace in history");
    assert.ok(!events.stdout.includes("tool_not_mapped"), "a refusal left a trace in history");
  });
});
