import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { sinceTime } from "../../src/cli/commands/operations.js";
import { EXAMPLE, EXAMPLE_MANIFEST, EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";
import { raes } from "./cli.js";

const HARNESS = join(ROOT, "test", "fixtures", "runtimes", "probe-harness.ts");
const INVOCATION = `${EXAMPLE.policy}:${EXAMPLE.participant}:`;

interface WireEntry {
  id: string;
  parent_id: string | null;
  kind: string;
  state: string;
  settlement: string | null;
  participant_address: string;
  created_at: string;
}

describe("raes operations", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-operations-"));
  const store = `sqlite:${join(dir, "cp.db")}`;
  const unknown = `sqlite:${join(dir, "unknown.db")}`;
  const list = async (...args: string[]) => {
    const r = await raes(["operations", "--store", store, "--json", ...args]);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { operations: WireEntry[] }).operations;
  };
  before(async () => {
    // Two invocations of one tool call each; in the other store the first call's effects are unknown.
    const base = ["run", EXAMPLE_SCENARIO, "--manifest", EXAMPLE_MANIFEST, "--runtime", HARNESS];
    const first = await raes([...base, "--store", store]);
    assert.equal(first.code, 0, first.stderr);
    const second = await raes([...base, "--store", unknown], { env: { RAES_TEST_MODE: "unknown" } });
    assert.equal(second.code, 1, second.stderr);
  });

  it("lists every operation newest first, as JSON, with participant and creation time", async () => {
    const all = await list();
    assert.deepEqual(
      all.map((o) => [o.id, o.kind, o.state, o.settlement, o.parent_id]),
      [
        [`${INVOCATION}1:tool=1`, "tool_action", "succeeded", "succeeded", `${INVOCATION}1`],
        [`${INVOCATION}1`, "scheduler_invocation", "succeeded", null, null],
        [`${INVOCATION}0:tool=1`, "tool_action", "succeeded", "succeeded", `${INVOCATION}0`],
        [`${INVOCATION}0`, "scheduler_invocation", "succeeded", null, null],
      ],
    );
    assert.ok(all.every((o) => o.participant_address === EXAMPLE.participant));
    const times = all.map((o) => o.created_at);
    assert.deepEqual(times, [...times].sort().reverse());
  });

  it("filters by state, kind, participant, time and limit", async () => {
    assert.deepEqual(
      (await list("--state", "succeeded", "--kind", "tool_action")).map((o) => o.id),
      [`${INVOCATION}1:tool=1`, `${INVOCATION}0:tool=1`],
    );
    assert.deepEqual(await list("--state", "indeterminate"), []);
    assert.deepEqual(
      (await list("--store", unknown, "--state", "indeterminate")).map((o) => o.id),
      [`${INVOCATION}0:tool=1`],
    );
    assert.deepEqual(
      (await list("--kind", "scheduler_invocation")).map((o) => o.id),
      [`${INVOCATION}1`, `${INVOCATION}0`],
    );
    assert.equal((await list("--limit", "1")).length, 1);
    assert.equal((await list("--participant", EXAMPLE.participant)).length, 4);
    assert.deepEqual(await list("--participant", "participant.behavior.nobody"), []);
    assert.equal((await list("--since", "1h")).length, 4);
    assert.deepEqual(await list("--since", "2999-01-01"), []);
  });

  it("prints a table for people, and refuses bad options and missing stores", async () => {
    const table = await raes(["operations", "--store", unknown, "--state", "indeterminate"]);
    assert.equal(table.code, 0, table.stderr);
    const [header, row] = table.stdout.trimEnd().split("\n");
    assert.match(header ?? "", /^CREATED +KIND +STATE +ID +DETAIL$/);
    // KIND says what --kind takes; ID is the shortest end of the id that names it alone.
    assert.match(row ?? "", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +tool_action +indeterminate +0:tool=1 /);
    const wide = await raes(["operations", "--store", unknown, "--state", "indeterminate", "--wide"]);
    const [wideHeader, wideRow] = wide.stdout.trimEnd().split("\n");
    assert.match(wideHeader ?? "", /^CREATED +KIND +STATE +PARTICIPANT +ID +DETAIL$/);
    assert.match(
      wideRow ?? "",
      new RegExp(
        `tool_action +indeterminate +${EXAMPLE.participant.replace(/\./g, "\\.")} +${INVOCATION.replace(/\./g, "\\.")}0:tool=1 `,
      ),
    );
    const invocations = await raes(["operations", "--store", unknown, "--kind", "scheduler_invocation"]);
    const kinds = invocations.stdout
      .trimEnd()
      .split("\n")
      .slice(1)
      .map((line) => line.split(/ +/)[2]);
    assert.ok(kinds.length > 0 && kinds.every((k) => k === "scheduler_invocation"), invocations.stdout);
    assert.match(row ?? "", / reason=timeout$/);
    const one = await raes(["operation", `${INVOCATION}0:tool=1`, "--store", unknown, "--json"]);
    assert.equal(JSON.parse(one.stdout).unknown_reason, "timeout");
    for (const bad of [
      ["--state", "lost"],
      ["--kind", "job"],
      ["--limit", "0"],
      ["--since", "yesterday"],
    ]) {
      const r = await raes(["operations", "--store", store, ...bad]);
      assert.equal(r.code, 2, bad.join(" "));
    }
    const missing = await raes(["operations", "--store", `sqlite:${join(dir, "missing.db")}`]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no store at/);
  });

  it("--since takes ISO times and durations back from now, in the stored microsecond form", () => {
    assert.equal(sinceTime("2026-11-30T12:00:00Z"), "2026-11-30T12:00:00.000000Z");
    assert.equal(sinceTime("2026-11-30"), "2026-11-30T00:00:00.000000Z");
    const now = () => Date.parse("2026-11-30T12:00:00Z");
    assert.equal(sinceTime("90s", now), "2026-11-30T11:58:30.000000Z");
    assert.equal(sinceTime("2h", now), "2026-11-30T10:00:00.000000Z");
    assert.equal(sinceTime("7d", now), "2026-11-23T12:00:00.000000Z");
  });
});
