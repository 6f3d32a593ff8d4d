import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { EXAMPLE } from "../helpers/example.js";
import { exampleRunArgs, raes } from "./cli.js";

const INVOCATION = `${EXAMPLE.policy}:${EXAMPLE.participant}:0`;
const ACTION = `${INVOCATION}:tool=1`;

describe("one store setting, short ids and what waits for an operator", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-ergonomics-"));
  const store = `sqlite:${join(dir, "cp.db")}`;
  before(async () => {
    // One invocation whose one tool call's effects are unknown: the scheduler stops on it.
    const run = await raes(exampleRunArgs(store), { env: { RAES_TEST_MODE: "unknown" } });
    assert.equal(run.code, 1, run.stderr);
  });

  it("--needs-operator lists the unresolved indeterminate action, marked with what it needs", async () => {
    const table = await raes(["operations", "--store", store, "--needs-operator"]);
    assert.equal(table.code, 0, table.stderr);
    const [header, row, blank, say, confirmed, absent, more] = table.stdout.trimEnd().split("\n");
    assert.match(header ?? "", /^NEEDS +CREATED +KIND +STATE +ID +DETAIL$/);
    assert.match(row ?? "", /^resolution +\S+ \S+ +tool_action +indeterminate +0:tool=1 /);
    // Under the table, each decision as a command that runs as printed, by the short id.
    assert.equal(blank, "");
    assert.equal(say, "resolve each with one of (the effect happened / did not):");
    assert.ok(confirmed?.endsWith(` resolve 0:tool=1 --effect confirmed --store ${store}`), confirmed);
    assert.ok(absent?.endsWith(` resolve 0:tool=1 --effect absent --store ${store}`), absent);
    assert.equal(more, undefined);
    const json = await raes(["operations", "--store", store, "--needs-operator", "--json"]);
    const listed = JSON.parse(json.stdout).operations as { id: string; needs: string }[];
    assert.deepEqual(
      listed.map((o) => [o.id, o.needs]),
      [[ACTION, "resolution"]],
    );
    const both = await raes(["operations", "--store", store, "--needs-operator", "--state", "failed"]);
    assert.equal(both.code, 2);
    assert.match(
      both.stderr,
      /^raes: cli\.usage: option '--needs-operator' cannot be used with option '--state/m,
    );
  });

  it("a run on a memory: store names what stopped, prints no command (none would find the store), and says why", async () => {
    const run = await raes([...exampleRunArgs("memory:"), "--steps", "1"], {
      env: { RAES_TEST_MODE: "unknown" },
    });
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stdout,
      /^stopped: participant\.behavior\.participant-agent \(tool_action_indeterminate\)$/m,
    );
    assert.match(
      run.stdout,
      /^the memory: store ended with this run, so nothing here can be resolved or resumed/m,
    );
    assert.doesNotMatch(run.stdout, /--store memory:/);
    const json = await raes([...exampleRunArgs("memory:"), "--steps", "1", "--json"], {
      env: { RAES_TEST_MODE: "unknown" },
    });
    const summary = JSON.parse(json.stdout) as { resolve: unknown[]; next: { commands: unknown[] }[] };
    assert.deepEqual(summary.resolve, []);
    assert.ok(summary.next.length > 0 && summary.next.every((s) => s.commands.length === 0), json.stdout);
  });

  it("every table line fits 120 columns; --wide and --json carry the whole ids", async () => {
    for (const extra of [[], ["--needs-operator"], ["--state", "indeterminate"]]) {
      const run = await raes(["operations", "--store", store, ...extra]);
      assert.equal(run.code, 0, run.stderr);
      // The table, not the commands under it: a command is printed whole, however long.
      const table = run.stdout.split("\n\n")[0] ?? "";
      for (const line of table.trimEnd().split("\n")) assert.ok(line.length <= 120, line);
      assert.doesNotMatch(run.stdout, new RegExp(EXAMPLE.policy.replace(/\./g, "\\.")));
    }
    const wide = await raes(["operations", "--store", store, "--wide"]);
    assert.ok(wide.stdout.includes(ACTION), wide.stdout);
    assert.ok(wide.stdout.split("\n").some((line) => line.length > 120));
  });

  it("a unique prefix or suffix names an operation; operations show is operation", async () => {
    const bySuffix = await raes(["operation", "0:tool=1", "--store", store, "--json"]);
    assert.equal(bySuffix.code, 0, bySuffix.stderr);
    assert.equal(JSON.parse(bySuffix.stdout).id, ACTION);
    const shown = await raes(["operations", "show", "0:tool=1", "--store", store, "--json"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout), JSON.parse(bySuffix.stdout));
    const byPrefix = await raes(["operation", `${INVOCATION}:tool`, "--store", store, "--json"]);
    assert.equal(JSON.parse(byPrefix.stdout).id, ACTION);
  });

  it("an ambiguous part of an id is a usage error listing the matches; an unknown one is not found", async () => {
    const text = await raes(["operation", EXAMPLE.policy, "--store", store]);
    assert.equal(text.code, 2);
    assert.match(text.stderr, /^raes: operation\.ambiguous-id: /m);
    assert.ok(text.stderr.includes(`  ${INVOCATION}\n`), text.stderr);
    assert.ok(text.stderr.includes(`  ${ACTION}\n`), text.stderr);
    const json = await raes(["operation", EXAMPLE.policy, "--store", store, "--json"]);
    assert.equal(json.code, 2);
    const answer = JSON.parse(json.stdout) as { error: string; matches: string[] };
    assert.equal(answer.error, "operation.ambiguous-id");
    assert.deepEqual(answer.matches, [INVOCATION, ACTION]);
    const resolve = await raes(["resolve", EXAMPLE.policy, "--effect", "absent", "--store", store]);
    assert.equal(resolve.code, 2);
    assert.match(resolve.stderr, /^raes: operation\.ambiguous-id: /m);
    const unknown = await raes(["operation", "tool=9", "--store", store]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^raes: operation\.not-found: no operation "tool=9"/m);
  });

  it("RAES_STORE stands in for --store; resolved actions are marked and no longer wait", async () => {
    const env = { RAES_STORE: store };
    const resolved = await raes(["resolve", "0:tool=1", "--effect", "absent"], { env });
    assert.equal(resolved.code, 0, resolved.stderr);
    assert.equal(resolved.stdout, `resolved ${ACTION}: effect_absent\n`);
    const waits = await raes(["operations", "--needs-operator"], { env });
    assert.equal(waits.code, 0, waits.stderr);
    assert.equal(waits.stdout, "");
    assert.equal(waits.stderr, `raes: no operations that wait for an operator match in ${store}\n`);
    const indeterminate = await raes(["operations", "--state", "indeterminate"], { env });
    assert.match(indeterminate.stdout, /indeterminate \(resolved effect_absent\) +0:tool=1 /);
    const bad = await raes(["operations"], { env: { RAES_STORE: "mysql://x" } });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^raes: cli\.usage: .*RAES_STORE/m);
  });

  it("nothing matched is one answer: stderr, exit 0, the same line for every listing", async () => {
    const events = await raes(["history", "--store", store, "--participant", "participant.behavior.nobody"]);
    assert.equal(events.code, 0, events.stderr);
    assert.equal(events.stdout, "");
    assert.equal(events.stderr, `raes: no history events match in ${store}\n`);
    const ops = await raes(["operations", "--store", store, "--participant", "participant.behavior.nobody"]);
    assert.equal(ops.code, 0, ops.stderr);
    assert.equal(ops.stderr, `raes: no operations match in ${store}\n`);
  });
});
