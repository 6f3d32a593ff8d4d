import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { usageLine } from "../../src/cli/program.js";
import { ROOT } from "../helpers/example.js";
import { exampleRunArgs, raes } from "./cli.js";

describe("every command-line error is printed with its code", () => {
  it("prints an unknown option as raes: cli.usage: …, exit 2", async () => {
    const run = await raes(["operations", "--bogus"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^raes: cli\.usage: unknown option '--bogus'$/m);
  });

  it("prints an unknown command and a store URL of no known scheme the same way", async () => {
    const unknown = await raes(["nosuch"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^raes: cli\.usage: unknown command 'nosuch'$/m);
    const store = await raes(["operations", "--store", "mysql://x"]);
    assert.equal(store.code, 2);
    assert.match(
      store.stderr,
      /^raes: cli\.usage: option '--store <url>' argument 'mysql:\/\/x' is invalid/m,
    );
  });

  it("leaves the help that follows an error as commander writes it", () => {
    assert.equal(usageLine("Usage: raes operations [options]\n"), "Usage: raes operations [options]\n");
    assert.equal(
      usageLine("error: missing required argument 'id'\n"),
      "raes: cli.usage: missing required argument 'id'\n",
    );
  });
});

describe("exit codes that do not depend on who reads", () => {
  it("a usage error exits 2 when its reader has closed stderr", async () => {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [join(ROOT, "dist", "cli", "main.js"), "operations", "--bogus"], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      // Closed before node has started, so the error line meets a pipe with no reader (EPIPE).
      child.stderr.destroy();
      child.on("close", resolve);
    });
    assert.equal(code, 2);
  });

  it("a text file given as a SQLite store is store.not-a-store, exit 2, for reads and run alike; the file is kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-not-a-store-"));
    const file = join(dir, "notes.txt");
    writeFileSync(file, "not a database, just notes\n");
    for (const args of [
      ["operations", "--store", `sqlite:${file}`],
      ["operation", "x", "--store", `sqlite:${file}`],
      ["history", "--store", `sqlite:${file}`],
      exampleRunArgs(`sqlite:${file}`),
    ]) {
      const run = await raes(args);
      assert.equal(run.code, 2, `${args[0]}: ${run.stderr}`);
      assert.match(
        run.stderr,
        /^raes: store\.not-a-store: sqlite:\S+ is not a control-plane store: \S+ is not a SQLite database$/m,
      );
    }
    assert.equal(readFileSync(file, "utf8"), "not a database, just notes\n");
  });
});
