import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { verifyBundle } from "../../src/evidence/index.js";
import { ROOT } from "../helpers/example.js";
import { raes } from "./cli.js";

const DIR = mkdtempSync(join(tmpdir(), "raes-verify-cli-"));
const STORE = join(DIR, "demo.db");
const BUNDLE = join(DIR, "evidence.jsonl");
const KEY = join(DIR, "key.pem");
const PUB = join(DIR, "pub.pem");
const OTHER_PUB = join(DIR, "other.pem");

/** Runs the built `raes` (dist/, `npm run build`) in `cwd`. */
function built(
  args: readonly string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, "dist", "cli", "main.js"), ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function writeKeys(): void {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  writeFileSync(KEY, privateKey.export({ type: "pkcs8", format: "pem" }));
  writeFileSync(PUB, publicKey.export({ type: "spki", format: "pem" }));
  const other = generateKeyPairSync("ed25519");
  writeFileSync(OTHER_PUB, other.publicKey.export({ type: "spki", format: "pem" }));
}

describe("raes verify and raes export over the demo's store", () => {
  before(async () => {
    writeKeys();
    const demo = await raes(["demo", "--store", `sqlite:${STORE}`, "--html", join(DIR, "demo.html")]);
    assert.ok(demo.code === 0 || demo.code === 1, demo.stderr);
  });
  after(() => rmSync(DIR, { recursive: true, force: true }));

  it("verifies the untouched store: exit 0 with the counts", async () => {
    const run = await raes(["verify", "--store", `sqlite:${STORE}`]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /verified: \d+ events of 1 participant, every chain intact/);
  });

  it("writes a signed bundle that verifies with no store, in a directory holding nothing else", async () => {
    const exported = await raes([
      "export",
      "--bundle",
      BUNDLE,
      "--sign-key",
      KEY,
      "--store",
      `sqlite:${STORE}`,
    ]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /signed \(sha256:[0-9a-f]{64}\)/);
    const empty = mkdtempSync(join(tmpdir(), "raes-no-store-"));
    try {
      const copy = join(empty, "evidence.jsonl");
      writeFileSync(copy, readFileSync(BUNDLE));
      // The built CLI, run where there is no store and no source: the bundle is all it reads.
      const run = await built(["verify", copy, "--public-key", PUB], empty);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /chains intact, 0 operator decisions, seal intact, signature verified/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("writes every line of the bundle as docs/evidence-bundle.schema.json describes it", async () => {
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    const schema = JSON.parse(readFileSync(join(ROOT, "docs", "evidence-bundle.schema.json"), "utf8"));
    const validate = new Ajv2020({ strict: true, strictRequired: true, strictTypes: false }).compile(schema);
    const lines = readFileSync(BUNDLE, "utf8").trimEnd().split("\n");
    const kinds = new Set<string>();
    for (const [i, line] of lines.entries()) {
      const value = JSON.parse(line) as { kind: string };
      kinds.add(value.kind);
      assert.ok(validate(value), `line ${i + 1}: ${JSON.stringify(validate.errors)}`);
    }
    assert.deepEqual([...kinds].sort(), ["chain", "event", "header", "operation", "operator_chain", "seal"]);
  });

  it("fails the bundle with the wrong public key, saying so", async () => {
    const run = await raes(["verify", BUNDLE, "--public-key", OTHER_PUB]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /signature: does not verify with the given public key/);
  });

  it("refuses an RSA or Ed448 public key, or a private key, as --public-key with cli.usage (exit 2)", async () => {
    const rsa = join(DIR, "rsa.pub.pem");
    const ed448 = join(DIR, "ed448.pub.pem");
    writeFileSync(
      rsa,
      generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }),
    );
    writeFileSync(ed448, generateKeyPairSync("ed448").publicKey.export({ type: "spki", format: "pem" }));
    for (const [key, message] of [
      [rsa, /is an RSA key; bundles are signed with Ed25519/],
      [ed448, /is an Ed448 key; bundles are signed with Ed25519/],
      [KEY, /holds a private key; give the signer's public key/],
    ] as const) {
      const run = await raes(["verify", BUNDLE, "--public-key", key]);
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.match(run.stderr, /cli\.usage/);
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stdout, /does not verify/);
    }
  });

  it("refuses a --public-key file that does not exist, saying so (cli.usage, exit 2)", async () => {
    const missing = join(DIR, "no-such-key.pem");
    const run = await raes(["verify", BUNDLE, "--public-key", missing]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /cli\.usage: .*no-such-key\.pem does not exist/);
  });

  it("fails the bundle when any byte is flipped", async () => {
    const bytes = readFileSync(BUNDLE);
    const { createPublicKey } = await import("node:crypto");
    const publicKey = createPublicKey(readFileSync(PUB));
    const flipped = join(DIR, "flipped.jsonl");
    // Every line's first and last bytes, and every 61st byte between.
    const positions = new Set<number>([0, bytes.length - 1]);
    for (let i = 0; i < bytes.length; i += 61) positions.add(i);
    for (let i = 0; i < bytes.length; i += 1)
      if (bytes[i] === 0x0a)
        positions
          .add(i)
          .add(i + 1)
          .add(i - 1);
    for (const at of positions) {
      if (at < 0 || at >= bytes.length) continue;
      const copy = Buffer.from(bytes);
      copy[at] = (copy[at] as number) ^ 0x01;
      writeFileSync(flipped, copy);
      const report = await verifyBundle(flipped, { publicKey });
      assert.equal(report.ok, false, `byte ${at} flipped still verifies`);
    }
  });

  it("names the edited event in a bundle whose seal was recomputed", async () => {
    const lines = readFileSync(BUNDLE, "utf8").trimEnd().split("\n");
    const at = lines.findIndex((l) => l.startsWith('{"kind":"event"'));
    const entry = JSON.parse(lines[at] as string) as {
      event: { sequence: number; participant_address: string; timestamp: string };
    };
    entry.event.timestamp = "2020-01-01T00:00:00.000000Z";
    lines[at] = JSON.stringify(entry);
    const body = lines
      .slice(0, -1)
      .map((l) => `${l}\n`)
      .join("");
    const { createHash } = await import("node:crypto");
    const digest = `sha256:${createHash("sha256").update(body).digest("hex")}`;
    const forged = join(DIR, "forged.jsonl");
    writeFileSync(
      forged,
      `${body}${JSON.stringify({ kind: "seal", lines: lines.length - 1, digest, signature: null })}\n`,
    );
    const run = await raes(["verify", forged]);
    assert.equal(run.code, 1);
    assert.match(
      run.stdout,
      new RegExp(
        `event edited: participant ${entry.event.participant_address}, sequence ${entry.event.sequence}`,
      ),
    );
    const signed = await raes(["verify", forged, "--public-key", PUB]);
    assert.match(signed.stdout, /the bundle is not signed, and a public key was given/);
  });

  it("refuses a bundle path that is the store itself or its journal, leaving the store whole", async () => {
    const before = readFileSync(STORE);
    for (const target of [STORE, `${STORE}-wal`, join(DIR, ".", "demo.db")]) {
      const run = await raes(["export", "--bundle", target, "--store", `sqlite:${STORE}`]);
      assert.equal(run.code, 2, run.stdout + run.stderr);
      assert.match(run.stderr, /^raes: cli\.usage: .* is the store the bundle is read from/m);
    }
    assert.deepEqual(readFileSync(STORE), before);
    const still = await raes(["verify", "--store", `sqlite:${STORE}`]);
    assert.equal(still.code, 0, still.stdout + still.stderr);
  });

  it("exits 1 naming the event edited directly in the store's SQLite file", async () => {
    const copy = join(DIR, "edited.db");
    writeFileSync(copy, readFileSync(STORE));
    const db = new Database(copy);
    db.prepare("UPDATE history_events SET body = ? WHERE sequence = 3").run(
      JSON.stringify({ participant_address: "participant.behavior.participant-agent", edited: true }),
    );
    db.close();
    const run = await raes(["verify", "--store", `sqlite:${copy}`]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /chain broken: edited event: participant participant\.behavior\.participant-agent, sequence 3/,
    );
  });

  it("refuses to export (and sign) a store whose chain is broken, naming the failure as verify does", async () => {
    const copy = join(DIR, "edited-export.db");
    writeFileSync(copy, readFileSync(STORE));
    const db = new Database(copy);
    db.prepare("UPDATE history_events SET body = ? WHERE sequence = 3").run(
      JSON.stringify({ participant_address: "participant.behavior.participant-agent", edited: true }),
    );
    db.close();
    const out = join(DIR, "broken.jsonl");
    const run = await raes(["export", "--store", `sqlite:${copy}`, "--bundle", out, "--sign-key", KEY]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /^raes: evidence\.store-broken: .*chain broken: edited event: participant participant\.behavior\.participant-agent, sequence 3: .*; no bundle was written$/m,
    );
    assert.equal(existsSync(out), false);
    assert.deepEqual(
      readdirSync(DIR).filter((f) => f.startsWith("broken.jsonl")),
      [],
    );
  });

  it("refuses a bundle given with --store as a usage error: the bundle is checked alone", async () => {
    const run = await raes(["verify", BUNDLE, "--store", `sqlite:${STORE}`]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /^raes: cli\.usage: give a bundle or --store, not both/m);
    assert.equal(run.stdout, "");
  });

  it("refuses a bundle path that does not exist with a coded error, exit 2", async () => {
    const run = await raes(["verify", join(DIR, "no-such-bundle.jsonl")]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(
      run.stderr,
      /^raes: evidence\.bundle-unreadable: cannot read the bundle .*no-such-bundle\.jsonl: ENOENT/m,
    );
  });

  it("says a signature it did not check is present but unchecked, and how to check it", async () => {
    const text = readFileSync(BUNDLE, "utf8");
    const { signature } = JSON.parse(text.trimEnd().split("\n").pop() as string) as { signature: string };
    const junk = join(DIR, "junk-signature.jsonl");
    writeFileSync(junk, text.replace(signature, Buffer.alloc(64, 7).toString("base64")));
    const run = await raes(["verify", junk]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /, signed/);
    assert.match(
      run.stdout,
      /signature present but not checked \(give the signer's public key with --public-key to check it\)/,
    );
    // Checked with the signer's key, the junk signature fails.
    const checked = await raes(["verify", junk, "--public-key", PUB]);
    assert.equal(checked.code, 1);
    assert.match(checked.stdout, /signature: does not verify with the given public key/);
  });

  it("exits 1 with a code naming the row whose stored body is not JSON", async () => {
    const copy = join(DIR, "not-json.db");
    writeFileSync(copy, readFileSync(STORE));
    const db = new Database(copy);
    db.prepare("UPDATE history_events SET body = ? WHERE sequence = 3").run("{not json");
    db.close();
    const run = await raes(["verify", "--store", `sqlite:${copy}`]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stderr, /^raes: store\.row-unreadable: history_events row 3: its body is not JSON/m);
  });

  it("refuses a sign key that is not an Ed25519 private key as a usage error", async () => {
    const run = await raes([
      "export",
      "--bundle",
      join(DIR, "x.jsonl"),
      "--sign-key",
      PUB,
      "--store",
      `sqlite:${STORE}`,
    ]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /holds no private key/);
  });
});
