import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { printableStoreUrl, resolveCommands, resumeCommand } from "../../src/printed/index.js";

const ID = "participant.autonomous-execution.spec:participant.behavior.a:0:tool=1";

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

describe("the printed raes resume command", () => {
  it("names the participant and the store, quoted for a shell and without a password", () => {
    assert.equal(
      resumeCommand("participant.behavior.a", "postgres://raes:s3cret-canary@db.example:5432/raes?schema=k1"),
      "raes resume participant.behavior.a --store 'postgres://raes@db.example:5432/raes?schema=k1'",
    );
    assert.equal(
      resumeCommand("participant.behavior.a", "sqlite:/tmp/my store.db"),
      "raes resume participant.behavior.a --store 'sqlite:/tmp/my store.db'",
    );
  });
});
