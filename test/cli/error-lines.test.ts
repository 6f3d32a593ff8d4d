import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { usageLine } from "../../src/cli/program.js";
import { raes } from "./cli.js";

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
