import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";

/** Runs `raes ARGS` with a stdout pipe whose reading end is closed at once, as `| head -0` would. */
function withClosedStdout(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliNodeArgs(args), {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

test("a reader that closes stdout early ends raes quietly, with the command's own exit code", async () => {
  for (const args of [["compile", EXAMPLE_SCENARIO], ["--help"]]) {
    const { code, stderr } = await withClosedStdout(args);
    assert.equal(code, 0, `${args.join(" ")}: ${stderr}`);
    assert.doesNotMatch(stderr, /EPIPE|Unhandled|at /, args.join(" "));
  }
});
