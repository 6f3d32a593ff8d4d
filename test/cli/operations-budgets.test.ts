import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../helpers/example.js";
import { V3_EXAMPLE, V3_MANIFEST, V3_TRACES } from "../runtime/v3/harness.js";
import { raes } from "./cli.js";

/** `raes run` of a v3 scenario with the measuring runtime and a fixed stochastic control, `steps` steps. */
function v3Run(scenario: string, steps: number, store: string) {
  return raes([
    "run",
    scenario,
    "--manifest",
    V3_MANIFEST,
    "--runtime",
    join(ROOT, "examples", "v3-measuring-runtime.ts"),
    "--stochastic-control",
    `green-activity-policy=green-activity:${"42".repeat(32)}`,
    "--steps",
    String(steps),
    "--store",
    store,
  ]);
}

describe("raes operations --budgets and the timeline (v3)", () => {
  it("show budget use per owner and window of a v3 run: a table, JSON and the timeline page", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-v3-budgets-"));
    const store = `sqlite:${join(dir, "cp.db")}`;
    const run = await v3Run(V3_EXAMPLE, 60, store);
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
    // 27 attempts, each a reserve and a commit: 54 events, every one kept; the last 10 listed.
    const counted = (
      JSON.parse(json.stdout) as { budget_events: { logged: number; kept: number; recent: unknown[] } }
    ).budget_events;
    assert.equal(counted.logged, 54);
    assert.equal(counted.kept, 54);
    assert.equal(counted.recent.length, 10);
    assert.match(table.stdout, /budget events \(54 recorded; the last 10\):/);
    assert.match(text, /data-budget-events="54"/);

    // A run throttled at every tick once its images (limit 5) are spent: far more than the 64 events a
    // schedule's log lists, and the store keeps every one, each throttle included.
    const throttledStore = `sqlite:${join(dir, "throttled.db")}`;
    const more = await v3Run(join(V3_TRACES, "images-run-limit.sdl.yaml"), 90, throttledStore);
    assert.equal(more.code, 0, more.stderr);
    const after = await raes(["operations", "--budgets", "--json", "--store", throttledStore]);
    const budgets = JSON.parse(after.stdout) as {
      budgets: { budget_id: string; throttled: number }[];
      budget_events: { logged: number; kept: number };
    };
    const throttles = budgets.budgets.find((b) => b.budget_id === "images")?.throttled ?? 0;
    assert.ok(throttles > 64, `throttled ${throttles}`);
    assert.equal(budgets.budget_events.kept, budgets.budget_events.logged);

    // Paged as JSON, the store gives every event once, each throttle the budgets count among them.
    const paged: { sequence: number; transition: string; seq: number }[] = [];
    for (let after: number | null = 0; after !== null; ) {
      const page = await raes([
        "operations",
        "--budget-events",
        "--json",
        "--limit",
        "50",
        "--after",
        String(after),
        "--store",
        throttledStore,
      ]);
      assert.equal(page.code, 0, page.stderr);
      const body = JSON.parse(page.stdout) as { budget_events: typeof paged; next_after: number | null };
      paged.push(...body.budget_events);
      after = body.next_after;
    }
    assert.equal(paged.length, budgets.budget_events.logged);
    assert.equal(paged.filter((e) => e.transition === "throttle").length, throttles);
    assert.deepEqual(
      paged.map((e) => e.seq),
      paged.map((_, i) => i + 1),
    );

    // The table says how many more there are and prints the command that lists them; it runs as printed.
    const noted = await raes(["operations", "--budgets", "--store", throttledStore]);
    const logged = budgets.budget_events.logged;
    const line = new RegExp(`budget events: and ${logged - 10} more \\(${logged} in all\\): (.*)$`, "m").exec(
      noted.stdout,
    );
    assert.ok(line?.[1], noted.stdout);
    const words = (line[1] as string).split(" ");
    const at = words.indexOf("operations");
    const listed = await raes(words.slice(at).map((w) => w.replace(/^'(.*)'$/, "$1")));
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^SEQUENCE +PARTICIPANT +EVENT +TICK/);
    assert.match(listed.stdout, /throttle/);
    assert.match(
      listed.stdout,
      /^next page: .*operations --budget-events --after [0-9]+ --limit 50 --store /m,
    );
    assert.equal((await raes(["history", "--html", page, "--store", throttledStore])).code, 0);
    assert.match(readFileSync(page, "utf8"), new RegExp(`class="budget-events" data-more="${logged - 10}"`));
  });

  it("refuses --after without --budget-events with cli.usage (exit 2), before any store is opened", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-after-"));
    const db = join(dir, "cp.db");
    for (const extra of [[], ["--budgets"], ["--state", "failed"]]) {
      const run = await raes(["operations", "--after", "5", ...extra, "--store", `sqlite:${db}`]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        /^raes: cli\.usage: option '--after <sequence>' pages budget events: give it with option '--budget-events'$/m,
      );
      assert.equal(run.stdout, "");
    }
    assert.equal(existsSync(db), false);
  });
});
