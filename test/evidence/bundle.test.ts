import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { verifyBundle, writeBundle } from "../../src/evidence/index.js";
import { jcsDigest } from "../../src/records/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { closeCommit, invocation, P1, P2, scheduler } from "../store/records.js";

const DIR = mkdtempSync(join(tmpdir(), "raes-bundle-"));
const BUNDLE = join(DIR, "evidence.jsonl");
let n = 0;

/** The lines of the bundle (without the seal) changed by `edit`, sealed again without a signature. */
function resealed(edit: (lines: string[]) => string[]): string {
  const lines = readFileSync(BUNDLE, "utf8").trimEnd().split("\n").slice(0, -1);
  const body = edit(lines)
    .map((l) => `${l}\n`)
    .join("");
  const digest = `sha256:${createHash("sha256").update(body).digest("hex")}`;
  const count = body.split("\n").length - 1;
  n += 1;
  const file = join(DIR, `forged-${n}.jsonl`);
  writeFileSync(file, `${body}${JSON.stringify({ kind: "seal", lines: count, digest, signature: null })}\n`);
  return file;
}

describe("a bundle's structure, checked by verifyBundle", () => {
  before(async () => {
    const store = await openControlPlaneStore("memory:");
    const closes = [
      invocation({ id: "inv-1", participantAddress: P1, ordinal: 0 }),
      invocation({ id: "inv-2", participantAddress: P2, ordinal: 0 }),
    ];
    for (const inv of closes)
      await store.openInvocation(inv, scheduler({ participantAddress: inv.participantAddress }));
    for (const inv of closes)
      await store.commitInvocation({
        ...closeCommit(inv),
        anchor: { scenario_digest: null, manifest_digest: jcsDigest({ name: "x" }) },
      });
    await writeBundle(store, BUNDLE, {
      version: "0.0.0-test",
      inputs: [
        {
          name: "manifest.json",
          bytes: Buffer.from('{"name": "x"}\n'),
          anchors: { manifest: jcsDigest({ name: "x" }) },
        },
      ],
    });
    await store.close();
  });
  after(() => rmSync(DIR, { recursive: true, force: true }));

  it("verifies the bundle as written, and as resealed unchanged", async () => {
    assert.deepEqual((await verifyBundle(BUNDLE)).problems, []);
    assert.deepEqual((await verifyBundle(resealed((lines) => lines))).problems, []);
  });

  it("fails a bundle that is only a seal: it has no header", async () => {
    const report = await verifyBundle(resealed(() => []));
    assert.equal(report.ok, false);
    assert.deepEqual(report.problems, ["the bundle has no raes-evidence-bundle/1 header line"]);
  });

  it("fails a chain line moved after the events, where it would no longer end its chain", async () => {
    const file = resealed((lines) => {
      const at = lines.findIndex((l) => l.startsWith('{"kind":"chain"'));
      const [chain] = lines.splice(at, 1);
      const events = lines.filter((l) => l.startsWith('{"kind":"event"')).length;
      lines.splice(at + 1 + events, 0, chain as string);
      return lines;
    });
    const report = await verifyBundle(file);
    assert.equal(report.ok, false);
    assert.ok(
      report.problems.some((p) => /a chain line after the first event line/.test(p)),
      report.problems.join("\n"),
    );
  });

  it("fails an input whose bytes no longer have the digest written beside them", async () => {
    const file = resealed((lines) =>
      lines.map((l) => {
        const value = JSON.parse(l) as { kind: string; base64?: string };
        return value.kind === "input"
          ? JSON.stringify({ ...value, base64: Buffer.from('{"name":"y"}').toString("base64") })
          : l;
      }),
    );
    const report = await verifyBundle(file);
    assert.equal(report.ok, false);
    assert.ok(
      report.problems.some((p) => /evidence\.input-digest: input "manifest\.json": its digest/.test(p)),
      report.problems.join("\n"),
    );
  });

  it("names two event lines swapped and resealed reordered, at the sequence that came late", async () => {
    const file = resealed((lines) => {
      const at = lines.findIndex((l) => l.startsWith('{"kind":"event"'));
      const [a, b] = [lines[at] as string, lines[at + 1] as string];
      lines.splice(at, 2, b, a);
      return lines;
    });
    const report = await verifyBundle(file);
    const sequence = JSON.parse(
      readFileSync(BUNDLE, "utf8")
        .split("\n")
        .find((l) => l.startsWith('{"kind":"event"')) as string,
    ).event.sequence;
    assert.deepEqual(
      [report.ok, report.chains?.failure?.kind, report.chains?.failure?.sequence],
      [false, "reordered", sequence],
    );
  });

  it("names a repeated event line inserted, not removed", async () => {
    const file = resealed((lines) => {
      const at = lines.findIndex((l) => l.startsWith('{"kind":"event"')) + 1;
      lines.splice(at + 1, 0, lines[at] as string);
      return lines;
    });
    const report = await verifyBundle(file);
    assert.deepEqual(
      [report.ok, report.chains?.failure?.kind],
      [false, "inserted"],
      report.problems.join("\n"),
    );
  });
});
