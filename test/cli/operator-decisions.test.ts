import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { verifyBundle } from "../../src/evidence/index.js";
import { resolveToolAction } from "../../src/operations/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { ROOT } from "../helpers/example.js";
import { POSTGRES_TEST_URL, postgresAvailable } from "../store/pg-available.js";
import { invocation, P1, scheduler, toolAction } from "../store/records.js";
import { raes } from "./cli.js";

const ACTION = "inv-a.tool-1";
const DIR = mkdtempSync(join(tmpdir(), "raes-operator-decisions-"));
after(() => rmSync(DIR, { recursive: true, force: true }));

/** A store with one stopped participant and one indeterminate tool action, no decision yet. */
async function undecided(url: string): Promise<void> {
  const store = await openControlPlaneStore(url);
  try {
    const inv = invocation();
    await store.openInvocation(inv, scheduler({ attempts: 1 }));
    await store.insertToolAction(toolAction(inv, 1, { phase: "settled", settlement: "indeterminate" }));
    await store.saveScheduler(
      scheduler({ attempts: 1, lifecycle: "stopped", stopReason: "tool_action_indeterminate" }),
    );
  } finally {
    await store.close();
  }
}

/** `undecided`, then two decisions made through the API: a resolve and a resume. */
async function decided(url: string): Promise<void> {
  await undecided(url);
  const store = await openControlPlaneStore(url);
  try {
    await resolveToolAction(store, ACTION, { resolution: "effect_absent", note: "n", operator: "bob" });
    await store.recordDecision(
      { kind: "resume", subject: P1, operator: "alice", note: "", decided_at: "2025-01-03T00:00:00.000000Z" },
      [scheduler({ attempts: 1 })],
    );
  } finally {
    await store.close();
  }
}

/** Direct edits of the operator_decisions table, and what `raes verify` must name. */
const TAMPERS = [
  {
    name: "edited",
    sql: "UPDATE operator_decisions SET operator = 'mallory' WHERE sequence = 1",
    says: /operator chain broken: edited decision: sequence 1:/,
  },
  {
    name: "deleted",
    sql: "DELETE FROM operator_decisions WHERE sequence = 1",
    says: /operator chain broken: removed decision: sequence 1:/,
  },
  {
    name: "inserted",
    sql: `INSERT INTO operator_decisions (sequence, kind, subject, operator, note, decided_at, chain_digest)
      VALUES (3, 'resume', '${P1}', 'mallory', '', '2025-01-04T00:00:00.000000Z', 'sha256:${"0".repeat(64)}')`,
    says: /operator chain broken: inserted decision: sequence 3:/,
  },
  {
    name: "counted otherwise by its head",
    sql: "UPDATE operator_chain SET decisions = 5",
    says: /operator chain broken: truncated decision: sequence 2: the recorded operator chain head counts 5 decisions, the chain holds 2/,
  },
] as const;

/** Direct edits of a resolved operation's record (not chained itself), and what `raes verify` must name. */
const OPERATION_TAMPERS = [
  {
    name: "its resolution flipped",
    sqlite: "UPDATE tool_actions SET resolution = replace(resolution, 'effect_absent', 'effect_confirmed')",
    postgres:
      "UPDATE tool_actions SET resolution = replace(resolution::text, 'effect_absent', 'effect_confirmed')::json",
    says: new RegExp(
      `operation record does not match the operator chain: operation ${ACTION}: its record's resolution differ`,
    ),
  },
  {
    name: "its resolver renamed",
    sqlite: "UPDATE tool_actions SET resolution = replace(resolution, '\"bob\"', '\"mallory\"')",
    postgres:
      "UPDATE tool_actions SET resolution = replace(resolution::text, '\"bob\"', '\"mallory\"')::json",
    says: new RegExp(`operation ${ACTION}: its record's operator differ`),
  },
  {
    name: "its resolution removed",
    sqlite: "UPDATE tool_actions SET resolution = NULL",
    postgres: "UPDATE tool_actions SET resolution = NULL",
    says: new RegExp(
      `operation ${ACTION}: decision 1 resolved it, its operation record holds no such resolution`,
    ),
  },
] as const;

describe("operator decisions from the command line", () => {
  it("records who resolved and who resumed, shows the resolver on raes operation, and verifies", async () => {
    const url = `sqlite:${join(DIR, "cli.db")}`;
    await undecided(url);
    const resolved = await raes([
      "resolve",
      ACTION,
      "--effect",
      "absent",
      "--operator",
      "bob",
      "--store",
      url,
    ]);
    assert.equal(resolved.code, 0, resolved.stderr);
    const resumed = await raes(["resume", P1, "--note", "checked", "--store", url], {
      env: { RAES_OPERATOR: "alice" },
    });
    assert.equal(resumed.code, 0, resumed.stderr);
    const shown = await raes(["operation", ACTION, "--json", "--store", url]);
    assert.equal(JSON.parse(shown.stdout).resolution.operator, "bob");
    const text = await raes(["operation", ACTION, "--store", url]);
    assert.match(text.stdout, /"operator":"bob"/);
    const store = await openControlPlaneStore(url);
    try {
      const decisions = await store.readDecisionPage(0, 10);
      assert.deepEqual(
        decisions.map((d) => [d.sequence, d.kind, d.subject, d.operator, d.note]),
        [
          [1, "resolve", ACTION, "bob", ""],
          [2, "resume", P1, "alice", "checked"],
        ],
      );
    } finally {
      await store.close();
    }
    const verified = await raes(["verify", "--store", url]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /2 operator decisions, operator chain intact/);
  });

  it("refuses an empty --operator with a stable code and records nothing", async () => {
    const url = `sqlite:${join(DIR, "refused.db")}`;
    await undecided(url);
    const refused = await raes(["resolve", ACTION, "--effect", "absent", "--operator", "", "--store", url]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /operator\.invalid/);
    const store = await openControlPlaneStore(url);
    try {
      assert.equal((await store.getDecisionHead()).decisions, 0);
      assert.equal((await store.getOperation(ACTION))?.resolution, undefined);
    } finally {
      await store.close();
    }
  });

  for (const tamper of TAMPERS) {
    it(`raes verify exits 1 naming a decision ${tamper.name} in SQLite`, async () => {
      const file = join(DIR, `${tamper.name}.db`);
      await decided(`sqlite:${file}`);
      const before = await raes(["verify", "--store", `sqlite:${file}`]);
      assert.equal(before.code, 0, before.stdout);
      const db = new Database(file);
      db.exec(tamper.sql);
      db.close();
      const run = await raes(["verify", "--store", `sqlite:${file}`]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stdout, tamper.says);
    });
  }

  for (const tamper of OPERATION_TAMPERS) {
    it(`raes verify exits 1 naming a resolved operation with ${tamper.name} in SQLite`, async () => {
      const file = join(DIR, `operation-${tamper.name.replaceAll(" ", "-")}.db`);
      await decided(`sqlite:${file}`);
      const before = await raes(["verify", "--store", `sqlite:${file}`]);
      assert.equal(before.code, 0, before.stdout);
      assert.match(before.stdout, /resolutions match their decisions \(1\)/);
      const db = new Database(file);
      assert.equal(db.prepare(tamper.sqlite).run().changes, 1);
      db.close();
      const run = await raes(["verify", "--store", `sqlite:${file}`]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stdout, tamper.says);
    });
  }
});

describe("operator decisions tampered in PostgreSQL", async () => {
  if (!(await postgresAvailable("operator decision tampering"))) return;
  for (const tamper of TAMPERS) {
    it(`raes verify exits 1 naming a decision ${tamper.name}`, async () => {
      const schema = `raes_opchain_${randomBytes(4).toString("hex")}`;
      const url = `${POSTGRES_TEST_URL}?schema=${schema}`;
      const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
      await client.connect();
      try {
        await decided(url);
        await client.query(`SET search_path TO ${schema}`);
        await client.query(tamper.sql);
        const run = await raes(["verify", "--store", url]);
        assert.equal(run.code, 1, run.stdout + run.stderr);
        assert.match(run.stdout, tamper.says);
      } finally {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      }
    });
  }
  for (const tamper of OPERATION_TAMPERS) {
    it(`raes verify exits 1 naming a resolved operation with ${tamper.name}`, async () => {
      const schema = `raes_opchain_${randomBytes(4).toString("hex")}`;
      const url = `${POSTGRES_TEST_URL}?schema=${schema}`;
      const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
      await client.connect();
      try {
        await decided(url);
        await client.query(`SET search_path TO ${schema}`);
        assert.equal((await client.query(tamper.postgres)).rowCount, 1);
        const run = await raes(["verify", "--store", url]);
        assert.equal(run.code, 1, run.stdout + run.stderr);
        assert.match(run.stdout, tamper.says);
      } finally {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      }
    });
  }
});

/** The bundle's lines before the seal, re-sealed unsigned: a forger who rewrites the seal too. */
function resealed(lines: readonly string[]): string {
  const body = lines.map((l) => `${l}\n`).join("");
  const digest = `sha256:${createHash("sha256").update(body).digest("hex")}`;
  return `${body}${JSON.stringify({ kind: "seal", lines: lines.length, digest, signature: null })}\n`;
}

describe("operator decisions in an evidence bundle", () => {
  it("carries the decisions and their head, every line as the JSON Schema describes, and verifies offline", async () => {
    const url = `sqlite:${join(DIR, "bundle.db")}`;
    await decided(url);
    const file = join(DIR, "bundle.jsonl");
    const exported = await raes(["export", "--bundle", file, "--store", url]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /2 operator decisions/);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    const schema = JSON.parse(readFileSync(join(ROOT, "docs", "evidence-bundle.schema.json"), "utf8"));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    for (const [i, line] of lines.entries())
      assert.ok(validate(JSON.parse(line)), `line ${i + 1}: ${JSON.stringify(validate.errors)}`);
    const kinds = lines.map((l) => (JSON.parse(l) as { kind: string }).kind);
    assert.equal(kinds.filter((k) => k === "decision").length, 2);
    assert.equal(kinds.filter((k) => k === "operator_chain").length, 1);
    const report = await verifyBundle(file);
    assert.equal(report.ok, true, report.problems.join("; "));
    assert.equal(report.operator?.decisions, 2);
    const run = await raes(["verify", file]);
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, /2 operator decisions, seal intact/);

    const body = lines.slice(0, -1);
    const at = body.findIndex((l) => l.includes('"kind":"decision"'));
    const edited = [...body];
    edited[at] = (edited[at] as string).replace('"operator":"bob"', '"operator":"mallory"');
    assert.notEqual(edited[at], body[at]);
    const tampered = join(DIR, "tampered.jsonl");
    writeFileSync(tampered, resealed(edited));
    const broken = await raes(["verify", tampered]);
    assert.equal(broken.code, 1, broken.stdout);
    assert.match(broken.stdout, /operator decision edited: sequence 1:/);

    const recounted = body.map((l) =>
      l.startsWith('{"kind":"operator_chain"') ? l.replace('"decisions":2', '"decisions":3') : l,
    );
    assert.notDeepEqual(recounted, body);
    writeFileSync(tampered, resealed(recounted));
    const miscounted = await verifyBundle(tampered);
    assert.match(
      miscounted.problems.join("\n"),
      /operator decision truncated: sequence 2: the recorded operator chain head counts 3 decisions, the chain holds 2/,
    );

    const dropped = body.filter((_, i) => i !== at);
    writeFileSync(tampered, resealed(dropped));
    const removed = await verifyBundle(tampered);
    assert.equal(removed.ok, false);
    assert.match(removed.problems.join("\n"), /operator decision removed: sequence 1:/);
  });
});
