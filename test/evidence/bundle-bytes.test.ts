import assert from "node:assert/strict";
import { createHash, generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  BundleUnreadableError,
  EvidenceCode,
  MAX_EVIDENCE_DEPTH,
  MAX_PROBLEMS_PER_KIND,
  verifyBundle,
  writeBundle,
} from "../../src/evidence/index.js";
import { jcsDigest } from "../../src/records/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { closeCommit, invocation, P1, scheduler } from "../store/records.js";

const DIR = mkdtempSync(join(tmpdir(), "raes-bundle-bytes-"));
const BUNDLE = join(DIR, "evidence.jsonl");
let publicKey: KeyObject;
let n = 0;

/** `bytes` written to a fresh file. */
function file(bytes: Buffer | string): string {
  n += 1;
  const path = join(DIR, `edited-${n}.jsonl`);
  writeFileSync(path, bytes);
  return path;
}

/** The bundle's lines before its seal changed by `edit`, sealed again without a signature. */
function resealed(edit: (lines: string[]) => string[]): string {
  const lines = readFileSync(BUNDLE, "utf8").trimEnd().split("\n").slice(0, -1);
  const body = edit(lines)
    .map((l) => `${l}\n`)
    .join("");
  const digest = `sha256:${createHash("sha256").update(body).digest("hex")}`;
  const count = body.split("\n").length - 1;
  return file(`${body}${JSON.stringify({ kind: "seal", lines: count, digest, signature: null })}\n`);
}

describe("a signed bundle is checked over its own bytes", () => {
  before(async () => {
    const store = await openControlPlaneStore("memory:");
    const inv = invocation({ id: "inv-1", participantAddress: P1, ordinal: 0 });
    await store.openInvocation(inv, scheduler({ participantAddress: P1 }));
    await store.commitInvocation({
      ...closeCommit(inv),
      anchor: { scenario_digest: null, manifest_digest: jcsDigest({ name: "\uFFFD" }) },
    });
    // A signature holding `+` or `/`, so its URL-safe spelling differs (most keys give one).
    for (;;) {
      const keys = generateKeyPairSync("ed25519");
      await writeBundle(store, BUNDLE, {
        version: "0.0.0-test",
        signKey: keys.privateKey,
        // U+FFFD in an input's name: three bytes a decoder would also make of one invalid byte.
        inputs: [
          {
            name: "manifest-\uFFFD.json",
            bytes: Buffer.from('{"name":"\uFFFD"}\n'),
            anchors: { manifest: jcsDigest({ name: "\uFFFD" }) },
          },
        ],
      });
      publicKey = keys.publicKey;
      if (/[+/]/.test(seal().signature)) break;
    }
    await store.close();
  });
  after(() => rmSync(DIR, { recursive: true, force: true }));

  const seal = (): { signature: string } =>
    JSON.parse(readFileSync(BUNDLE, "utf8").trimEnd().split("\n").pop() as string);

  it("verifies the signed bundle as written", async () => {
    const report = await verifyBundle(BUNDLE, { publicKey });
    assert.deepEqual([report.ok, report.signature, report.problems], [true, "verified", []]);
  });

  it("fails a line feed turned into a carriage return: lines are split at 0x0A only", async () => {
    const bytes = readFileSync(BUNDLE);
    bytes[bytes.indexOf(0x0a)] = 0x0d;
    const report = await verifyBundle(file(bytes), { publicKey });
    assert.equal(report.ok, false);
    assert.match(report.problems.join("\n"), /^line 1: not a JSON object$/m);
    assert.match(report.problems.join("\n"), /^seal: the digest of the bundle is /m);
  });

  it("fails a line after a sound seal as that alone: the seal's count is of the lines before it", async () => {
    const bytes = readFileSync(BUNDLE, "utf8");
    const report = await verifyBundle(file(`${bytes}{"kind":"header"}\n`), { publicKey });
    assert.equal(report.ok, false);
    assert.equal(report.signature, "verified");
    assert.match(report.problems.join("\n"), /^line \d+: a line after the seal$/m);
    assert.doesNotMatch(report.problems.join("\n"), /lines before its seal/);
  });

  it("fails a line with a member its kind does not have, or a repeated key at any depth (evidence.line-members)", async () => {
    const lines = readFileSync(BUNDLE, "utf8").trimEnd().split("\n");
    const at = lines.findIndex((l) => l.startsWith('{"kind":"event"'));
    assert.ok(at > 0);
    const event = lines[at] as string;
    for (const [edit, says] of [
      [
        (l: string[]) => [`${(l[0] as string).slice(0, -1)},"extra":1}`, ...l.slice(1)],
        /^line 1: evidence\.line-members: a "header" line has no member "extra"$/m,
      ],
      [
        (l: string[]) => l.map((x, i) => (i === at ? `${x.slice(0, -1)},"note":"x"}` : x)),
        /: evidence\.line-members: a "event" line has no member "note"$/m,
      ],
      [
        (l: string[]) =>
          l.map((x, i) => (i === at ? x.replace('{"kind":"event",', '{"kind":"event","kind":"event",') : x)),
        /: evidence\.line-members: an object in the line repeats a key$/m,
      ],
      [
        (l: string[]) => l.map((x, i) => (i === at ? x.replace('"event":{', '"event":{"sequence":0,') : x)),
        /: evidence\.line-members: an object in the line repeats a key$/m,
      ],
    ] as const) {
      const report = await verifyBundle(resealed(edit), {});
      assert.equal(report.ok, false, event);
      assert.match(report.problems.join("\n"), says);
    }
  });

  it("fails a line that is not UTF-8 with its code, hashing its bytes as they are", async () => {
    const bytes = readFileSync(BUNDLE);
    const at = bytes.indexOf(Buffer.from("\uFFFD"));
    assert.ok(at > 0);
    const edited = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at + 3)]);
    const report = await verifyBundle(file(edited), { publicKey });
    assert.equal(report.ok, false);
    assert.match(report.problems.join("\n"), /^line \d+: evidence\.invalid-utf8: the line is not UTF-8$/m);
  });

  it("fails the signature spelled in URL-safe base64, with or without a key", async () => {
    const text = readFileSync(BUNDLE, "utf8");
    const { signature } = seal();
    const urlSafe = signature.replaceAll("+", "-").replaceAll("/", "_");
    const edited = file(text.replace(signature, urlSafe));
    for (const options of [{ publicKey }, {}]) {
      const report = await verifyBundle(edited, options);
      assert.equal(report.ok, false);
      assert.deepEqual(report.problems, [
        `signature: ${EvidenceCode.signature_malformed}: not standard base64 (with padding) of 64 bytes`,
      ]);
    }
  });

  it("fails the signature without its padding, or with a non-canonical last character", async () => {
    const text = readFileSync(BUNDLE, "utf8");
    const { signature } = seal();
    const last = signature[85] as string;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    // The 86th character carries 2 bits and 4 unused ones, which a canonical spelling leaves 0.
    const sloppy = `${signature.slice(0, 85)}${alphabet[alphabet.indexOf(last) | 1]}==`;
    for (const spelling of [signature.slice(0, 86), sloppy]) {
      const report = await verifyBundle(file(text.replace(signature, spelling)), { publicKey });
      assert.equal(report.ok, false, spelling);
      assert.match(report.problems.join("\n"), /evidence\.signature-malformed/);
    }
  });

  it("names the event holding a number beyond a double (1e400), without an uncoded error", async () => {
    const path = resealed((lines) =>
      lines.map((line, i) =>
        i === lines.findIndex((l) => l.startsWith('{"kind":"event"'))
          ? line.replace('"sequence":1', '"sequence":1,"weight":1e400')
          : line,
      ),
    );
    const report = await verifyBundle(path);
    assert.equal(report.ok, false);
    assert.deepEqual(
      [report.chains?.failure?.kind, report.chains?.failure?.sequence],
      ["edited", 1],
      report.problems.join("\n"),
    );
    assert.match(report.problems.join("\n"), /RFC 8785 has no text for/);
  });

  it("refuses a line longer than the cap with its code, reading no further", async () => {
    const path = resealed((lines) => [
      ...lines.slice(0, 1),
      `{"kind":"operation","operation":{"pad":"${"x".repeat(5000)}"}}`,
    ]);
    const report = await verifyBundle(path, { maxLineBytes: 4096 });
    assert.equal(report.ok, false);
    assert.equal(
      report.problems[0],
      `line 2: ${EvidenceCode.line_too_long}: longer than 4096 bytes; the bundle was read no further`,
    );
    assert.equal((await verifyBundle(path, { maxLineBytes: 8192 })).ok, true, "under the cap it verifies");
  });

  it("refuses a bundle path that does not exist with a coded error", async () => {
    await assert.rejects(verifyBundle(join(DIR, "missing.jsonl")), (error: unknown) => {
      assert.ok(error instanceof BundleUnreadableError);
      assert.equal(error.code, EvidenceCode.bundle_unreadable);
      return true;
    });
  });

  it("keeps at most MAX_PROBLEMS_PER_KIND problems of a kind and counts the rest", async () => {
    const lines = readFileSync(BUNDLE, "utf8").split("\n");
    // 1000 empty lines after the header: 1000 lines that are not JSON, one kind.
    const report = await verifyBundle(file(`${lines[0]}\n${"\n".repeat(1000)}`), { publicKey });
    assert.equal(report.ok, false);
    const notJson = report.problems.filter((p) => /^line \d+: not a JSON object$/.test(p));
    assert.equal(notJson.length, MAX_PROBLEMS_PER_KIND);
    assert.ok(
      report.problems.includes(
        `and ${1000 - MAX_PROBLEMS_PER_KIND} more problems of this kind: line not a JSON object`,
      ),
    );
    assert.ok(report.problems.length < 2 * MAX_PROBLEMS_PER_KIND);
    assert.ok((report.problems_omitted ?? 0) >= 1000 - MAX_PROBLEMS_PER_KIND);
  });

  it("fails a seal line that is not byte for byte its one spelling, signature and digest still valid", async () => {
    const text = readFileSync(BUNDLE, "utf8");
    const body = text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1);
    const line = text.slice(body.length, -1);
    const sig = `"signature":${JSON.stringify(seal().signature)}`;
    const variants = {
      extraMember: `${line.slice(0, -1)},"countersigned_by":"auditor"}\n`,
      repeatedKey: `${line.slice(0, -1)},${sig}}\n`,
      spaces: `  ${line} \t\n`,
      crlf: `${line}\r\n`,
      noFinalLf: line,
      escapedKind: `${line.replace('"kind":"seal"', '"kind":"\\u0073eal"')}\n`,
    };
    assert.equal((await verifyBundle(file(`${body}${line}\n`), { publicKey })).ok, true);
    for (const [name, sealText] of Object.entries(variants)) {
      const report = await verifyBundle(file(`${body}${sealText}`), { publicKey });
      assert.equal(report.ok, false, name);
      assert.match(report.problems.join("\n"), new RegExp(EvidenceCode.seal_not_canonical), name);
    }
  });

  it("fails an event nested 200 000 levels deep with a coded finding naming it, not a stack overflow", async () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const path = resealed((lines) =>
      lines.map((line) =>
        line.startsWith('{"kind":"event"')
          ? line.replace('"sequence":1', `"sequence":1,"deep":${deep}`)
          : line,
      ),
    );
    const report = await verifyBundle(path);
    assert.equal(report.ok, false);
    assert.deepEqual([report.chains?.failure?.kind, report.chains?.failure?.sequence], ["edited", 1]);
    assert.match(
      report.problems.join("\n"),
      new RegExp(`${EvidenceCode.unsealable}: .*deeper than ${MAX_EVIDENCE_DEPTH}`),
    );
  });
});
