import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { EXAMPLE_MANIFEST, EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";
import { raes } from "./cli.js";

const DIR = mkdtempSync(join(tmpdir(), "raes-export-inputs-"));
const STORE = `sqlite:${join(DIR, "demo.db")}`;
const BUNDLE = join(DIR, "evidence.jsonl");

const sha256 = (bytes: Buffer): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** The bundle's lines before the seal, with `edit` applied, re-sealed unsigned: a forger who rewrites the seal too. */
function resealed(edit: (lines: string[]) => string[]): string {
  const lines = edit(readFileSync(BUNDLE, "utf8").trimEnd().split("\n").slice(0, -1));
  const body = lines.map((l) => `${l}\n`).join("");
  const digest = sha256(Buffer.from(body));
  const file = join(DIR, `forged-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(
    file,
    `${body}${JSON.stringify({ kind: "seal", lines: lines.length, digest, signature: null })}\n`,
  );
  return file;
}

interface InputLine {
  kind: "input";
  role: string;
  name: string;
  digest: string;
  base64: string;
}

describe("raes export --include-inputs and raes verify FILE over the demo's store", () => {
  before(async () => {
    const demo = await raes(["demo", "--store", STORE, "--html", join(DIR, "demo.html")]);
    assert.ok(demo.code === 0 || demo.code === 1, demo.stderr);
    const exported = await raes([
      "export",
      "--bundle",
      BUNDLE,
      "--store",
      STORE,
      "--include-inputs",
      EXAMPLE_SCENARIO,
      EXAMPLE_MANIFEST,
    ]);
    assert.equal(exported.code, 0, exported.stderr);
  });
  after(() => rmSync(DIR, { recursive: true, force: true }));

  const inputLines = (file = BUNDLE): InputLine[] =>
    readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string })
      .filter((v): v is InputLine => v.kind === "input");

  it("writes each input byte for byte, base64 with the digest of the file's own bytes, in the role its chain records", () => {
    const [scenario, manifest] = inputLines();
    for (const [line, file, role] of [
      [scenario, EXAMPLE_SCENARIO, "scenario"],
      [manifest, EXAMPLE_MANIFEST, "manifest"],
    ] as const) {
      assert.ok(line);
      assert.equal(line.role, role);
      assert.deepEqual(Buffer.from(line.base64, "base64"), readFileSync(file));
      assert.equal(line.digest, sha256(readFileSync(file)));
    }
  });

  it("verifies the bundle, each input matching a chain's scenario or manifest digest", async () => {
    const run = await raes(["verify", BUNDLE]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /2 inputs matching a chain's scenario or manifest digest/);
  });

  it("writes every input line as docs/evidence-bundle.schema.json describes it", async () => {
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    const schema = JSON.parse(readFileSync(join(ROOT, "docs", "evidence-bundle.schema.json"), "utf8"));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    for (const line of inputLines()) assert.ok(validate(line), JSON.stringify(validate.errors));
  });

  it("fails an input replaced by another manifest, its digest and seal recomputed: evidence.input-unanchored", async () => {
    const other = readFileSync(join(ROOT, "examples", "harness-backend-v2.manifest.json"));
    const forged = resealed((lines) =>
      lines.map((l) => {
        const v = JSON.parse(l) as InputLine;
        if (v.kind !== "input" || v.role !== "manifest") return l;
        return JSON.stringify({ ...v, digest: sha256(other), base64: other.toString("base64") });
      }),
    );
    const run = await raes(["verify", forged]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /evidence\.input-unanchored: input "harness-backend\.manifest\.json" \(manifest\): it yields manifest_digest sha256:[0-9a-f]{64}, which no chain line records/,
    );
  });

  it("fails an input whose bytes changed under its digest: evidence.input-digest", async () => {
    const forged = resealed((lines) =>
      lines.map((l) => {
        const v = JSON.parse(l) as InputLine;
        if (v.kind !== "input" || v.role !== "scenario") return l;
        const bytes = Buffer.concat([Buffer.from(v.base64, "base64"), Buffer.from("# appended\n")]);
        return JSON.stringify({ ...v, base64: bytes.toString("base64") });
      }),
    );
    const run = await raes(["verify", forged]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /evidence\.input-digest: input "enterprise-participant-evidence-loop\.sdl\.yaml": its digest/,
    );
  });

  it("refuses to export a file no chain started from (evidence.input-unanchored, exit 2), writing nothing", async () => {
    const out = join(DIR, "unanchored.jsonl");
    const other = join(ROOT, "examples", "harness-backend-v2.manifest.json");
    const run = await raes(["export", "--bundle", out, "--store", STORE, "--include-inputs", other]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /^raes: evidence\.input-unanchored: harness-backend-v2\.manifest\.json is neither .* \(as a manifest its digest is sha256:[0-9a-f]{64}\); no bundle was written$/m,
    );
    assert.equal(existsSync(out), false);
    // A file that reads as neither says so, not an empty list of digests.
    const readme = await raes([
      "export",
      "--bundle",
      out,
      "--store",
      STORE,
      "--include-inputs",
      join(ROOT, "README.md"),
    ]);
    assert.equal(readme.code, 2, readme.stderr);
    assert.match(
      readme.stderr,
      /README\.md is neither .* \(it reads as neither a scenario nor a manifest\); no bundle/,
    );
    assert.deepEqual(
      readdirSync(DIR).filter((f) => f.startsWith("unanchored.jsonl")),
      [],
    );
  });

  it("refuses a bundle whose folder does not exist (evidence.bundle-unwritable, exit 2), writing nothing", async () => {
    const out = join(DIR, "no-such-folder", "evidence.jsonl");
    const run = await raes(["export", "--bundle", out, "--store", STORE]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /^raes: evidence\.bundle-unwritable: cannot write the bundle .*evidence\.jsonl: its folder .*no-such-folder does not exist; nothing was written$/m,
    );
    assert.equal(existsSync(join(DIR, "no-such-folder")), false);
  });

  it("refuses a bundle whose folder is a file, saying it is not a folder (evidence.bundle-unwritable, exit 2)", async () => {
    const file = join(DIR, "old.jsonl");
    writeFileSync(file, "kept\n");
    const run = await raes(["export", "--bundle", join(file, "x.jsonl"), "--store", STORE]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /^raes: evidence\.bundle-unwritable: cannot write the bundle .*x\.jsonl: its folder .*old\.jsonl is not a folder; nothing was written$/m,
    );
    assert.equal(readFileSync(file, "utf8"), "kept\n");
  });

  it("refuses an empty --bundle as cli.usage (exit 2), writing nothing", async () => {
    const run = await raes(["export", "--bundle", "", "--store", STORE]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /^raes: cli\.usage: .*the bundle is a file path to write, not empty/m);
  });
});
