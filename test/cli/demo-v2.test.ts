import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { DemoSummary } from "../../src/demo/index.js";
import type { HistoryEvent } from "../../src/history/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { attributeValues, withRows } from "../fixtures/history/html.js";
import { raes } from "./cli.js";

const POLICY = "participant.autonomous-execution.participant-behavior";
const PARTICIPANT = "participant.behavior.participant-agent";
const ATTEMPT = new RegExp(
  `^${POLICY.replaceAll(".", "\\.")}:${PARTICIPANT.replaceAll(".", "\\.")}:episode=[^:]+:segment=0:occurrence=\\d+:retry=\\d+$`,
);

describe("raes demo --profile v2", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-demo-v2-"));
  const file = join(dir, "demo.db");
  const html = join(dir, "demo.html");
  let code: number | null;
  let stderr: string;
  let summary: DemoSummary & { html: string; resolve: string[] };
  let events: HistoryEvent[];

  before(async () => {
    const run = await raes([
      "demo",
      "--profile",
      "v2",
      "--json",
      "--store",
      `sqlite:${file}`,
      "--html",
      html,
    ]);
    code = run.code;
    stderr = run.stderr;
    summary = JSON.parse(run.stdout);
    const store = await openControlPlaneStore(`sqlite:${file}`);
    try {
      events = await store.listEvents({});
    } finally {
      await store.close();
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("runs the v2 example with the agent behind the gateway and ends on the indeterminate call (exit 1)", () => {
    assert.equal(code, 1, stderr);
    assert.equal(summary.agent_failures, 0);
    assert.deepEqual(summary.stopped, [{ participant: PARTICIPANT, reason: "tool_action_indeterminate" }]);
    assert.deepEqual(summary.tool_actions, { succeeded: 3, indeterminate: 1 });
    assert.deepEqual(summary.refusals, { target_outside_binding: 1 });
    assert.deepEqual(summary.gateway_refusals, { tool_not_mapped: 1 });
  });

  it("runs v2 attempts: RAES attempt ids, tool ids <attempt id>:tool=<n>, provenance on every event", () => {
    assert.ok(events.length > 0);
    for (const event of events) {
      const p = event.activity_provenance;
      assert.ok(p, event.event_id);
      assert.equal(p.policy_profile, "participant-autonomous-execution/v2");
      assert.match(p.attempt_id, ATTEMPT);
      const tool = event.invocation_tool_context;
      if (tool) {
        assert.equal(tool.invocation_action_instance_id, p.attempt_id);
        assert.match(
          event.action_instance_id,
          new RegExp(`^${p.attempt_id.replace(/[.=]/g, "\\$&")}:tool=\\d+$`),
        );
      } else assert.equal(event.action_instance_id, p.attempt_id);
    }
    const attempts = new Set(events.map((e) => e.activity_provenance?.attempt_id));
    assert.equal(attempts.size, summary.invocations);
    assert.deepEqual(
      // Each starts the way the CLI was invoked (node /abs/dist/cli/main.js here); the rest is fixed.
      summary.resolve.map((c) => c.slice(c.indexOf(" resolve ") + 1)),
      summary.indeterminate.flatMap((id) =>
        ["confirmed", "absent"].map((effect) => `resolve ${id} --effect ${effect} --store sqlite:${file}`),
      ),
    );
  });

  it("draws the timeline with candidate, disposition and continuation; the public demo seed is stored nowhere", () => {
    const page = withRows(readFileSync(html, "utf8"));
    assert.equal(attributeValues(page, "data-candidate").length, summary.invocations);
    assert.ok(
      attributeValues(page, "data-disposition").every((d) =>
        ["drawn", "next_opening", "burst", "retry"].includes(d),
      ),
    );
    const [continuation] = attributeValues(page, "data-continuation");
    assert.ok(continuation);
    assert.equal(JSON.parse(continuation).attempted_actions, summary.invocations);
    const bytes = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f)).toString("latin1"))
      .join("");
    assert.ok(!bytes.toLowerCase().includes("42".repeat(32)));
  });
});
