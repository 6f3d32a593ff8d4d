import assert from "node:assert/strict";
import { it } from "node:test";
import pg from "pg";
import { OperationKind } from "../../src/records/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { adminQuery, inFreshSchema } from "./pg-available.js";
import { invocation, scheduler } from "./records.js";

/** Every node of an EXPLAIN (FORMAT JSON) plan, depth first. */
function nodes(plan: Record<string, unknown>): Record<string, unknown>[] {
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [plan, ...children.flatMap(nodes)];
}

// A listing's later page starts where the index reaches the cursor: a page deep into a long listing
// reads about its own rows, not every newer row again (an export pages through everything).
it("a later page of an operation listing starts its index range at the cursor", async (t) => {
  await inFreshSchema(t, "postgres operation pages", "raes_pages", async (url) => {
    const store = await openControlPlaneStore(url);
    const schema = new URL(url).searchParams.get("schema") as string;
    try {
      // 20 000 tool actions of one invocation, a thousand to each creation time, as a long run leaves them.
      await store.openInvocation(invocation({ id: "inv", state: "running" }), scheduler());
      await adminQuery(`INSERT INTO ${schema}.tool_actions SELECT (json_populate_record(NULL::${schema}.tool_actions,
        json_build_object('id', 'a' || lpad(n::text, 6, '0'), 'invocation_id', 'inv', 'participant_address', (SELECT participant_address FROM ${schema}.invocations WHERE id = 'inv'),
          'tool_call_id', 'c' || n, 'admission_ordinal', n, 'phase', 'admitted', 'request', '{}',
          'request_digest', 'd', 'created_at', '2026-01-01T00:00:' || lpad((n / 1000)::text, 2, '0') || '.000000Z',
          'updated_at', 'u', 'admitted_at', 'u'))).* FROM generate_series(1, 20000) AS n`);
      await adminQuery(`ANALYZE ${schema}.tool_actions`);
      const first = await store.listOperations({ kind: OperationKind.tool_action, limit: 15_000 });
      const last = first.at(-1);
      assert.ok(last !== undefined);
      // The statement the next page sends, as the driver is asked to run it.
      const sent: pg.QueryConfig[] = [];
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const config = args[0];
        if (typeof config === "object" && config !== null && "text" in config)
          sent.push(config as pg.QueryConfig);
        else if (typeof config === "string") sent.push({ text: config, values: args[1] as unknown[] });
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      let page: Awaited<ReturnType<typeof store.listOperations>>;
      try {
        page = await store.listOperations({
          kind: OperationKind.tool_action,
          limit: 10,
          before: { createdAt: last.createdAt, id: last.id },
        });
      } finally {
        pg.Client.prototype.query = query;
      }
      assert.deepEqual(
        page.map((e) => e.id),
        Array.from({ length: 10 }, (_, k) => `a${String(5_000 - k).padStart(6, "0")}`),
      );
      const statement = sent.find((c) => c.text.includes("FROM tool_actions"));
      assert.ok(statement, "the page's statement was seen");
      const client = new pg.Client({
        connectionString: url.split("?")[0],
        options: `-c search_path=${schema}`,
      });
      await client.connect();
      try {
        const explained = await client.query({
          text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
          values: statement.values ?? [],
        });
        const plan = (explained.rows[0] as { "QUERY PLAN": [{ Plan: Record<string, unknown> }] })[
          "QUERY PLAN"
        ][0].Plan;
        const scans = nodes(plan).filter((n) => String(n["Node Type"]).includes("Index"));
        assert.ok(scans.length > 0, JSON.stringify(plan));
        for (const scan of scans) {
          assert.match(String(scan["Index Cond"]), /created_at/, "the cursor bounds the index range");
          assert.ok(Number(scan["Rows Removed by Filter"] ?? 0) < 100, JSON.stringify(scan));
        }
      } finally {
        await client.end();
      }
    } finally {
      await store.close();
    }
  });
});
