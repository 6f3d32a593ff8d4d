import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { raes } from "./cli.js";

describe("help text shows commands a person can type", () => {
  it("raes mcp-gateway --help shows no VAR=<placeholder> prefix (the harness sets the token)", async () => {
    const help = await raes(["mcp-gateway", "--help"]);
    assert.equal(help.code, 0, help.stderr);
    assert.doesNotMatch(help.stdout, /[A-Z_]+=(?:<|…)/);
    assert.match(help.stdout, /^ {2}raes mcp-gateway --port-socket /m);
  });
});
