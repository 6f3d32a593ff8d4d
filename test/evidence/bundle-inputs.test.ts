import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { EvidenceCode, verifyBundle, writeBundle } from "../../src/evidence/index.js";
import { jcsDigest } from "../../src/records/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { closeCommit, invocation, P1, scheduler } from "../store/records.js";

const MANIFEST = { name: "x" };
const SCENARIO_DIGEST = `sha256:${"5".repeat(64)}`;

describe("an evidence bundle's inputs", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-bundle-inputs-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A bundle of a store whose chain started from MANIFEST and SCENARIO_DIGEST, with `inputs`. */
  async function bundle(name: string, inputs: Parameters<typeof writeBundle>[2]["inputs"]): Promise<string> {
    const store = await openControlPlaneStore(`sqlite:${join(dir, `${name}.db`)}`);
    try {
      const inv = invocation({ id: "inv-1", participantAddress: P1, ordinal: 0 });
      await store.openInvocation(inv, scheduler({ participantAddress: P1 }));
      await store.commitInvocation({
        ...closeCommit(inv as never),
        anchor: { scenario_digest: SCENARIO_DIGEST, manifest_digest: jcsDigest(MANIFEST) },
      });
      const file = join(dir, `${name}.jsonl`);
      await writeBundle(store, file, { version: "0", ...(inputs ? { inputs } : {}) });
      return file;
    } finally {
      await store.close();
    }
  }

  const inputLine = (file: string) =>
    readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string; role?: string; digest?: string; base64?: string })
      .find((v) => v.kind === "input");

  it("holds a file's bytes exactly, bytes that are not UTF-8 included, with the digest of those bytes", async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x7b, 0x7d, 0x0a]);
    const file = await bundle("binary", [
      { name: "odd.bin", bytes, anchors: { manifest: jcsDigest(MANIFEST) } },
    ]);
    const line = inputLine(file);
    assert.deepEqual(Buffer.from(line?.base64 ?? "", "base64"), bytes);
    assert.equal(line?.digest, `sha256:${createHash("sha256").update(bytes).digest("hex")}`);
    // Its bytes are no manifest at all: the claim its writer made is not taken on trust.
    const report = await verifyBundle(file);
    assert.equal(report.ok, false);
    assert.match(
      report.problems.join("\n"),
      new RegExp(
        `${EvidenceCode.input_unanchored}: input "odd.bin" \\(manifest\\): it cannot be read as a manifest`,
      ),
    );
  });

  it("verifies a manifest whose JSON value's digest its chain records, and a scenario by the digest given to compile it", async () => {
    const manifest = Buffer.from('{ "name" : "x" }\r\n');
    const scenario = Buffer.from("any: scenario\n");
    const file = await bundle("anchored", [
      { name: "m.json", bytes: manifest, anchors: { manifest: jcsDigest(MANIFEST) } },
      { name: "s.yaml", bytes: scenario, anchors: { scenario: SCENARIO_DIGEST } },
    ]);
    const checked = await verifyBundle(file, {
      scenarioDigest: (bytes) => (bytes.equals(scenario) ? SCENARIO_DIGEST : undefined),
    });
    assert.deepEqual([checked.ok, checked.problems, checked.inputs], [true, [], { total: 2, anchored: 2 }]);
    const other = await verifyBundle(file, { scenarioDigest: () => `sha256:${"6".repeat(64)}` });
    assert.match(
      other.problems.join("\n"),
      /evidence\.input-unanchored: input "s\.yaml" \(scenario\): it yields scenario_digest sha256:6{64}, which no chain line records/,
    );
  });

  it("refuses to write an input no chain started from, leaving no bundle", async () => {
    await assert.rejects(
      bundle("unanchored", [
        { name: "m.json", bytes: Buffer.from("{}"), anchors: { manifest: jcsDigest({}) } },
      ]),
      (error: Error & { code?: string }) => error.code === EvidenceCode.input_unanchored,
    );
  });
});
