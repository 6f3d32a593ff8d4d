import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import {
  invocationWords,
  printableStoreUrl,
  printedCommand,
  resolveCommands,
  resumeCommand,
} from "../../src/printed/index.js";

const ID = "participant.autonomous-execution.spec:participant.behavior.a:0:tool=1";
// What every printed command starts with in this process (raes, npx raes or node /abs/main.js).
const RAES = printedCommand([]);

describe("printed raes resolve commands", () => {
  it("never print a PostgreSQL password (the command then takes PGPASSWORD or ~/.pgpass)", () => {
    const { confirmed, absent } = resolveCommands(
      ID,
      "postgres://raes:s3cret-canary@db.example:5432/raes?schema=k1",
    );
    for (const command of [confirmed, absent]) {
      assert.doesNotMatch(command, /s3cret-canary/);
      assert.match(command, /--store 'postgres:\/\/raes@db\.example:5432\/raes\?schema=k1'$/);
    }
  });

  it("keep every other store URL as given", () => {
    for (const url of [
      "sqlite:/tmp/x.db",
      "memory:",
      "postgres://raes@127.0.0.1:5432/raes",
      "postgresql://127.0.0.1/raes?schema=a",
    ])
      assert.equal(printableStoreUrl(url), url);
    assert.equal(printableStoreUrl("postgresql://u:p@h/d"), "postgresql://u@h/d");
  });
});

describe("a printed command starts the way this CLI is invoked and runs as printed", () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "raes-invocation-")));
  const main = join(dir, "pkg", "dist", "cli", "main.js");
  mkdirSync(dirname(main), { recursive: true });
  writeFileSync(main, "#!/usr/bin/env node\n");
  chmodSync(main, 0o755);
  const nodeDir = dirname(process.execPath);
  const context = (path: string, cwd = dir) => ({ path, cwd, execPath: process.execPath, main });

  it("is raes when the first raes on PATH is this CLI", () => {
    const bin = join(dir, "global-bin");
    mkdirSync(bin);
    symlinkSync(main, join(bin, "raes"));
    assert.deepEqual(invocationWords(context(`${bin}:${nodeDir}`)), ["raes"]);
    // Another raes earlier on PATH would run instead: not this one.
    const other = join(dir, "other-bin");
    mkdirSync(other);
    writeFileSync(join(other, "raes"), "#!/bin/sh\n");
    chmodSync(join(other, "raes"), 0o755);
    assert.notDeepEqual(invocationWords(context(`${other}:${bin}:${nodeDir}`)), ["raes"]);
  });

  it("is npx raes inside a project whose node_modules/.bin/raes is this CLI, even with that bin on PATH", () => {
    const project = join(dir, "project");
    mkdirSync(join(project, "node_modules", ".bin"), { recursive: true });
    mkdirSync(join(project, "src"));
    writeFileSync(join(project, "package.json"), "{}");
    symlinkSync(main, join(project, "node_modules", ".bin", "raes"));
    // npx puts the project's bin on the PATH of what it starts; a person's shell does not have it.
    const npxPath = `${join(project, "node_modules", ".bin")}:${nodeDir}`;
    assert.deepEqual(invocationWords(context(npxPath, join(project, "src"))), ["npx", "raes"]);
    assert.deepEqual(invocationWords(context(nodeDir, dir)), ["node", main]);
  });

  it("is node /abs/main.js elsewhere, with node by its absolute path when PATH has no node", () => {
    assert.deepEqual(invocationWords(context(nodeDir)), ["node", main]);
    assert.deepEqual(invocationWords(context("/nonexistent")), [process.execPath, main]);
  });

  it("quotes every argument for POSIX shells: /bin/sh hands each back unchanged", () => {
    const words = ["it's", "a b", "$HOME", "`x`", "*", 'a"b', "--store", "sqlite:/tmp/x y.db", "", "é;|&"];
    const printed = printedCommand(words, ["printf", "%s\\n"]);
    const out = spawnSync("/bin/sh", ["-c", printed], { encoding: "utf8" });
    assert.equal(out.status, 0, out.stderr);
    assert.deepEqual(out.stdout.split("\n").slice(0, -1), words);
    assert.doesNotMatch(resolveCommands(ID, "sqlite:x.db").absent, /^[A-Z_]+=/);
  });
});

describe("the printed raes resume command", () => {
  it("names the participant and the store, quoted for a shell and without a password", () => {
    assert.equal(
      resumeCommand("participant.behavior.a", "postgres://raes:s3cret-canary@db.example:5432/raes?schema=k1"),
      `${RAES} resume participant.behavior.a --store 'postgres://raes@db.example:5432/raes?schema=k1'`,
    );
    assert.equal(
      resumeCommand("participant.behavior.a", "sqlite:/tmp/my store.db"),
      `${RAES} resume participant.behavior.a --store 'sqlite:/tmp/my store.db'`,
    );
  });
});
