import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { EXAMPLE, EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";
import { adminQuery, freshSchema, postgresAvailable } from "../store/pg-available.js";
import { exampleRunArgs, raes } from "./cli.js";

const POLICY = "participant.autonomous-execution.participant-behavior";

/**
 * A store run once under the example, refused under an edited policy, then run under it with
 * `--allow-policy-change` by carol: the policy_change decision is in the store, and a bundle of it.
 */
async function changedRun(store: string, dir: string): Promise<Record<string, unknown>> {
  const edited = join(dir, "edited.sdl.yaml");
  const text = readFileSync(EXAMPLE_SCENARIO, "utf8");
  writeFileSync(edited, text.replace("      failure_policy: stop\n", "      failure_policy: continue\n"));
  const first = await raes(exampleRunArgs(store, "--steps", "1"));
  assert.equal(first.code, 0, first.stderr);

  const withEdited = (...extra: string[]) => {
    const args = exampleRunArgs(store, "--steps", "1", ...extra);
    args[1] = edited;
    return raes(args);
  };
  const refused = await withEdited();
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /runtime\.participant-autonomous-state-conflict/);
  assert.match(refused.stderr, new RegExp(POLICY.replaceAll(".", "\\.")));
  assert.match(refused.stderr, /--allow-policy-change/);

  const allowed = await withEdited(
    "--allow-policy-change",
    "--operator",
    "carol",
    "--note",
    "failure_policy relaxed",
    "--json",
  );
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(
    allowed.stderr,
    /policy changed \(participant\.autonomous-execution\.participant-behavior\): a new segment starts under the new policy, recorded as a policy_change decision by carol/,
  );
  const again = await withEdited();
  assert.equal(again.code, 0, "the edited policy is now the store's");

  const verified = await raes(["verify", "--store", store]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  assert.match(verified.stdout, /1 operator decision, operator chain intact/);

  const bundle = join(dir, "bundle.jsonl");
  const exported = await raes(["export", "--bundle", bundle, "--store", store]);
  assert.equal(exported.code, 0, exported.stderr);
  const lines = readFileSync(bundle, "utf8").trimEnd().split("\n");
  const { Ajv2020 } = await import("ajv/dist/2020.js");
  const schema = JSON.parse(readFileSync(join(ROOT, "docs", "evidence-bundle.schema.json"), "utf8"));
  const validate = new Ajv2020({ strict: false }).compile(schema);
  for (const [i, line] of lines.entries())
    assert.ok(validate(JSON.parse(line)), `line ${i + 1}: ${JSON.stringify(validate.errors)}`);
  const decisions = lines
    .map((l) => JSON.parse(l) as { kind: string; decision?: Record<string, unknown> })
    .flatMap((l) => (l.kind === "decision" && l.decision ? [l.decision] : []));
  assert.equal(decisions.length, 1);
  const [decision] = decisions;
  assert.ok(decision);
  assert.equal(decision.kind, "policy_change");
  assert.equal(decision.subject, EXAMPLE.participant);
  assert.equal(decision.operator, "carol");
  assert.equal(decision.note, "failure_policy relaxed");
  assert.equal(decision.policy_address, POLICY);
  assert.match(String(decision.previous_policy_digest), /^sha256:[0-9a-f]{64}$/);
  assert.match(String(decision.policy_digest), /^sha256:[0-9a-f]{64}$/);
  assert.notEqual(decision.previous_policy_digest, decision.policy_digest);
  const checked = await raes(["verify", bundle]);
  assert.equal(checked.code, 0, checked.stdout);
  assert.match(checked.stdout, /1 operator decision, seal intact/);
  return decision;
}

/** The stored decision's old policy digest rewritten, as someone hiding which policy ran before would. */
const FORGED = `sha256:${"0".repeat(64)}`;
const TAMPER = `UPDATE operator_decisions SET previous_policy_digest = '${FORGED}' WHERE kind = 'policy_change'`;

describe("raes run on a store whose policy was edited", () => {
  it("is refused naming the policy; --allow-policy-change starts a new segment, chained as a policy_change decision that raes verify covers (SQLite)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-policy-cli-"));
    const file = join(dir, "cp.db");
    await changedRun(`sqlite:${file}`, dir);
    const db = new Database(file);
    db.exec(TAMPER);
    db.close();
    const run = await raes(["verify", "--store", `sqlite:${file}`]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /operator chain broken: edited decision: sequence 1:/);
  });

  it("the same on PostgreSQL", async (t) => {
    if (!(await postgresAvailable("policy change decision from the command line")))
      return t.skip("PostgreSQL unavailable");
    const dir = mkdtempSync(join(tmpdir(), "raes-policy-cli-pg-"));
    const { schema, url, drop } = freshSchema("raes_policy_cli");
    try {
      await changedRun(url, dir);
      await adminQuery(`SET search_path TO ${schema}; ${TAMPER}`);
      const run = await raes(["verify", "--store", url]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stdout, /operator chain broken: edited decision: sequence 1:/);
    } finally {
      await drop();
    }
  });
});
