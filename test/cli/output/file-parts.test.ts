import assert from "node:assert/strict";
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { writeFileParts } from "../../../src/cli/output/index.js";

describe("writeFileParts", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-file-parts-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("writes every part in order", async () => {
    const path = join(dir, "whole.txt");
    const big = "x".repeat(1 << 20);
    await writeFileParts(path, ["a", big, "b"]);
    assert.equal(readFileSync(path, "utf8"), `a${big}b`);
  });

  it("takes a part only once the file has taken the ones before it", async () => {
    const path = join(dir, "paced.txt");
    const part = "y".repeat(1 << 20);
    let taken = 0;
    let ahead = 0;
    function* parts(): Generator<string> {
      for (let i = 0; i < 32; i += 1) {
        taken += 1;
        yield part;
      }
    }
    const written = writeFileParts(path, parts());
    // While the first parts are written, far fewer than all 32 have been asked for.
    await new Promise((resolve) => setImmediate(resolve));
    ahead = taken;
    await written;
    assert.ok(ahead < 32, `${ahead} parts were taken before the file took them`);
    assert.equal(readFileSync(path, "utf8").length, 32 * part.length);
  });

  it("writes through a symbolic link, which stays a link", async () => {
    const target = join(dir, "target.txt");
    const link = join(dir, "link.txt");
    writeFileSync(target, "old");
    symlinkSync(target, link);
    await writeFileParts(link, ["new"]);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readFileSync(target, "utf8"), "new");
  });

  it("leaves the file as it was, and no partial file, when a part fails", async () => {
    const path = join(dir, "kept.txt");
    writeFileSync(path, "before");
    function* failing(): Generator<string> {
      yield "half";
      throw new Error("render failed");
    }
    // The partial file's open may still be under way when a part fails: it must not land after.
    for (let attempt = 0; attempt < 50; attempt += 1) {
      await assert.rejects(writeFileParts(path, failing()), /render failed/);
      await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(readFileSync(path, "utf8"), "before");
      assert.deepEqual(
        readdirSync(dir).filter((name) => name.startsWith("kept")),
        ["kept.txt"],
        `attempt ${attempt}`,
      );
    }
  });
});
