import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { makeDirectories } from "../../src/cli/directories.js";
import { openControlPlaneStore } from "../../src/index.js";
import { raes } from "./cli.js";

describe("makeDirectories and the commands that make folders", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-dirs-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("makes every missing folder down the path, with the mode asked, and leaves existing ones", () => {
    const deep = join(dir, "a", "b", "c");
    makeDirectories(deep, 0o700);
    assert.ok(statSync(deep).isDirectory());
    assert.equal(statSync(join(dir, "a")).mode & 0o777, 0o700 & ~process.umask());
    makeDirectories(deep);
    assert.ok(existsSync(deep));
  });

  // Node 20's recursive mkdirSync loops for ever under /proc: without the walk these hang.
  it("fails at once where no folder can be made (under /proc)", { timeout: 20_000 }, async () => {
    assert.throws(() => makeDirectories("/proc/raes-no-such/x"), { code: "ENOENT" });
    const store = `sqlite:${join(dir, "cp.db")}`;
    await (await openControlPlaneStore(store)).close();
    for (const args of [
      ["history", "--store", store, "--html", "/proc/raes-no-such/t.html"],
      ["demo", "--store", "sqlite:/proc/raes-no-such/d.db"],
    ]) {
      const run = await raes(args);
      assert.notEqual(run.code, 0, args.join(" "));
      assert.match(
        run.stderr,
        /ENOENT: no such file or directory, mkdir '\/proc\/raes-no-such'/,
        args.join(" "),
      );
    }
  });
});
