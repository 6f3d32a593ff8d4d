import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { holdingLine } from "../../src/mcp/index.js";

describe("the log line of a call held for approval", () => {
  it("prints the approve and deny commands with the runtime's store when the gateway knows it", () => {
    const line = holdingLine("echo", "tool=1", "sqlite:/tmp/some store.db");
    assert.match(
      line,
      /holding echo \(tool=1\) for approval: .*approve tool=1 --store 'sqlite:\/tmp\/some store\.db'/,
    );
    assert.match(line, /deny tool=1 --store 'sqlite:\/tmp\/some store\.db'/);
  });

  it("prints no command when the store is unknown (a gateway on a port socket), so nothing printed decides the wrong store", () => {
    const line = holdingLine("echo", "tool=1", undefined);
    assert.doesNotMatch(line, /--store/);
    assert.doesNotMatch(line, /raes approve tool=1/);
  });

  it("prints commands that run as printed: pasted into a shell, the approve command opens the named store", () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-holding-"));
    try {
      const path = join(dir, "no store here.db");
      const approve = /: (\S.*?) {2}\(or:/.exec(holdingLine("echo", "tool=1", `sqlite:${path}`))?.[1];
      assert.ok(approve);
      let stderr = "";
      try {
        execFileSync("sh", ["-c", approve], { stdio: "pipe" });
      } catch (error) {
        stderr = String((error as { stderr?: Buffer }).stderr ?? "");
      }
      // The shell passed the quoted store through whole: the CLI names exactly that store.
      assert.match(stderr, /store\.missing/);
      assert.ok(stderr.includes(path), stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
