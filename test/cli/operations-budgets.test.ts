import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../helpers/example.js";
import { V3_EXAMPLE, V3_MANIFEST, V3_TRACES } from "../runtime/v3/harness.js";
import { raes } from "./cli.js";

describe("raes operations --budgets and the timeline (v3)", () => {
  it("show budget use per owner and window of a v3 run: a table, JSON and the timeline page", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-v3-budgets-"));
    const store = `sqlite:${join(dir, "cp.db")}`;
    const run = await raes([
      "run",
      V3_EXAMPLE,
      "--manifest",
      V3_MANIFEST,
      "--runtime",
      join(ROOT, "examples", "v3-measuring-runtime.ts"),
      "--stochastic-control",
      `green-activity-policy=green-activity:${"42".repeat(32)}`,
      "--steps",
      "60",
      "--store",
      store,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const json = await raes(["operations", "--budgets", "--json", "--store", store]);
    assert.equal(json.code, 0, json.stderr);
    const rows = (JSON.parse(json.stdout) as { budgets: Record<string, unknown>[] }).budgets;
    assert.equal(rows.length, 8);
    const byId = new Map(rows.map((r) => [r.budget_id, r]));
    // 27 attempts in all; the last window (500–600) holds 4 of them; gauges hold nothing once committed.
    assert.deepEqual(byId.get("participant-actions")?.window, [500, 600]);
    assert.equal(byId.get("participant-actions")?.used, 4);
    assert.equal(byId.get("images")?.used, 27);
    assert.equal(byId.get("concurrency")?.used, 0);
    assert.equal(byId.get("tokens")?.owner, "provision.node.customer-portal.service.http");
    const table = await raes(["operations", "--budgets", "--store", store]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^OWNER +BUDGET +WINDOW +USED/);
    assert.match(
      table.stdout,
      /participant\.behavior\.participant-agent +participant-actions +500–600 +4 actions +24/,
    );
    // The timeline shows the same use per owner and window in the participant's section.
    const page = join(dir, "timeline.html");
    const html = await raes(["history", "--html", page, "--store", store]);
    assert.equal(html.code, 0, html.stderr);
    const text = readFileSync(page, "utf8");
    assert.match(
      text,
      /<tr data-budget="participant-actions"><td>participant\.behavior\.participant-agent<\/td><td>participant-actions<\/td><td>500–600<\/td><td>4 \/ 24 actions<\/td>/,
    );
    assert.match(text, /<tr data-budget="images">.*?<td>27 \/ 40 images<\/td>/);
    // Every budget operation so far is still listed: no note.
    assert.deepEqual((JSON.parse(json.stdout) as { budget_events: unknown }).budget_events, {
      limit: 64,
      logged: 27,
      kept: 27,
    });
    assert.doesNotMatch(table.stdout, /budget events:/);
    assert.doesNotMatch(text, /class="budget-events"/);

    // A run throttled at every tick once its images (limit 5) are spent logs more operations than a
    // schedule's log lists: both views say how many are no longer listed.
    const throttledStore = `sqlite:${join(dir, "throttled.db")}`;
    const more = await raes([
      "run",
      join(V3_TRACES, "images-run-limit.sdl.yaml"),
      "--manifest",
      V3_MANIFEST,
      "--runtime",
      join(ROOT, "examples", "v3-measuring-runtime.ts"),
      "--stochastic-control",
      `green-activity-policy=green-activity:${"42".repeat(32)}`,
      "--steps",
      "90",
      "--store",
      throttledStore,
    ]);
    assert.equal(more.code, 0, more.stderr);
    const after = await raes(["operations", "--budgets", "--json", "--store", throttledStore]);
    const events = (JSON.parse(after.stdout) as { budget_events: { logged: number; kept: number } })
      .budget_events;
    assert.ok(events.logged > 64, `logged ${events.logged}`);
    assert.equal(events.kept, 64);
    const noted = await raes(["operations", "--budgets", "--store", throttledStore]);
    assert.match(
      noted.stdout,
      new RegExp(
        `budget events: ${events.logged - 64} of ${events.logged} operations are no longer listed \\(each schedule lists its last 64\\); the totals above count every one`,
      ),
    );
    assert.equal((await raes(["history", "--html", page, "--store", throttledStore])).code, 0);
    assert.match(
      readFileSync(page, "utf8"),
      new RegExp(`class="budget-events" data-dropped="${events.logged - 64}"`),
    );
  });
});
