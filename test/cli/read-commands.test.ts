import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { EXAMPLE_MANIFEST, EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";
import { adminQuery, freshSchema, postgresAvailable } from "../store/pg-available.js";
import { type CliRun, exampleRunArgs, raes } from "./cli.js";

const P = "participant.behavior.participant-agent";
const HARNESS = join(ROOT, "test", "fixtures", "runtimes", "probe-harness.ts");
const dir = mkdtempSync(join(tmpdir(), "raes-read-"));
const ID = `participant.autonomous-execution.participant-behavior:${P}:0:tool=1`;

/** Every command that reads or amends an existing control plane, with its arguments. */
const READ_COMMANDS: readonly (readonly string[])[] = [
  ["history"],
  ["history", "--json"],
  ["history", "--html", join(dir, "page.html")],
  ["operation", ID],
  ["resolve", ID, "--effect", "absent"],
  ["resume", P],
];

/** Runs the built CLI under plain node, as an installed `raes` runs. */
function builtRaes(args: readonly string[], cwd = dir): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, "dist", "cli", "main.js"), ...args], {
      cwd,
      env: { ...process.env, RAES_TEST_MODE: "unknown" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("read commands never create a store", () => {
  it("a missing SQLite file: 'no store at …', exit 2, and no file is created", async () => {
    for (const args of READ_COMMANDS) {
      const file = join(dir, `missing-${args[0]}.db`);
      const result = await raes([...args, "--store", `sqlite:${file}`]);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`no store at sqlite:${file.replace(/[.]/g, "\\.")}`));
      assert.equal(existsSync(file), false, `${args.join(" ")} created ${file}`);
    }
    assert.equal(existsSync(join(dir, "page.html")), false);
  });

  it("memory: is no store to read: it lives only in the process that made it (never 'verified: 0 events')", async () => {
    for (const args of [...READ_COMMANDS, ["verify"], ["operations"]]) {
      const result = await raes([...args, "--store", "memory:"]);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(
        result.stderr,
        /store\.missing: no store at memory: \(a memory: store lives only inside/,
        args.join(" "),
      );
    }
  });

  it("an empty file or a database without the control plane is no store either", async () => {
    const file = join(dir, "empty.db");
    writeFileSync(file, "");
    const result = await raes(["history", "--store", `sqlite:${file}`]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /no store at .*no control-plane tables/);
  });

  it("PostgreSQL: a missing schema is no store, and it is not created", async (t) => {
    if (!(await postgresAvailable("read commands on a missing schema"))) return t.skip();
    const { schema, url, drop } = freshSchema("raes_missing");
    after(drop);
    const result = await raes(["operation", ID, "--store", url]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`no store at .*schema ${schema} has no control-plane tables`));
    const found = await adminQuery("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [
      schema,
    ]);
    assert.equal(found.length, 0, "the schema was created");
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const empty = await raes(["history", "--store", url]);
    assert.equal(empty.code, 2, empty.stderr);
    assert.match(empty.stderr, /no store at/);
  });
});

describe("read commands on PostgreSQL", () => {
  it("a missing database is no store (exit 2), and no message prints the URL's password", async (t) => {
    if (!(await postgresAvailable("read commands on a missing database"))) return t.skip();
    const { url } = freshSchema("raes_nodb");
    // Trust or password auth alike: the server never sees this database, so the password is never checked.
    const withPassword = new URL(url);
    withPassword.password = "s3cret-canary";
    withPassword.pathname = `/raes_missing_${process.pid}`;
    const missingDb = await raes(["operations", "--store", withPassword.toString()]);
    assert.equal(missingDb.code, 2, missingDb.stderr);
    assert.match(missingDb.stderr, /no store at .*does not exist/);
    assert.doesNotMatch(missingDb.stdout + missingDb.stderr, /s3cret-canary/);
    const missingSchema = new URL(url);
    missingSchema.password = "s3cret-canary";
    const noSchema = await raes(["history", "--store", missingSchema.toString()]);
    assert.equal(noSchema.code, 2, noSchema.stderr);
    assert.doesNotMatch(noSchema.stdout + noSchema.stderr, /s3cret-canary/);
  });
});

describe("raes resolve is idempotent for the same decision", () => {
  it("same decision again: exit 0, 'already resolved'; a different one: exit 1, refused", async () => {
    const store = `sqlite:${join(dir, "resolve.db")}`;
    const run = await builtRaes(exampleRunArgs(store, "--steps", "5"));
    assert.equal(run.code, 1, run.stderr);
    const printed = run.stdout.split("\n").map((line) => line.trim());
    // The built CLI, neither on PATH nor a project's bin, prints itself as node /abs/dist/cli/main.js.
    const built = `node ${join(ROOT, "dist", "cli", "main.js")}`;
    assert.ok(printed.includes(`${built} resolve ${ID} --effect confirmed --store ${store}`), run.stdout);
    assert.ok(printed.includes(`${built} resolve ${ID} --effect absent --store ${store}`), run.stdout);
    // The HTML page's command for this decision runs as printed, from another directory.
    const page = join(dir, "resolve.html");
    const html = await raes(["history", "--store", store, "--html", page]);
    assert.equal(html.code, 0, html.stderr);
    const printedOnPage = [
      ...readFileSync(page, "utf8").matchAll(/data-effect="absent">([^<]+)<\/code>/g),
    ].map((m) => m[1] ?? "");
    assert.ok(printedOnPage.length > 0);
    const [command = ""] = printedOnPage;
    assert.ok(
      command.endsWith(` resolve ${ID} --effect absent --store sqlite:${join(dir, "resolve.db")}`),
      command,
    );
    const first = spawnSync("/bin/sh", ["-c", command], { cwd: tmpdir(), encoding: "utf8" });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /^resolved /);
    const again = await raes(["resolve", ID, "--effect", "absent", "--store", store]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already resolved .*effect_absent/);
    const json = await raes(["resolve", ID, "--effect", "absent", "--store", store, "--json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).already_resolved, true);
    const other = await raes(["resolve", ID, "--effect", "confirmed", "--store", store]);
    assert.equal(other.code, 1);
    assert.match(
      other.stderr,
      /resolution\.already-resolved: .* already resolved as effect_absent .* a different decision \(effect_confirmed\) is refused/,
    );
  });
});

describe("raes run --runtime MODULE.ts under plain node", () => {
  it("loads a TypeScript runtime module through tsx", async () => {
    const store = `sqlite:${join(dir, "ts.db")}`;
    const args = ["run", EXAMPLE_SCENARIO, "--manifest", EXAMPLE_MANIFEST, "--runtime", HARNESS];
    const run = await builtRaes([...args, "--store", store, "--json"]);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(JSON.parse(run.stdout).invocations, 1);
  });
});
