import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { breakingRunPlace, runWithBreakingStore } from "../helpers/breaking-run.js";
import { adminQuery, postgresAvailable } from "../store/pg-available.js";

const available = await postgresAvailable("raes run whose store fails");

describe("raes run whose step fails on its PostgreSQL store", {
  skip: available ? false : "POSTGRES UNAVAILABLE",
}, () => {
  const { dir, schema, url } = breakingRunPlace("run_failure");

  it("reports the error, gives its participants back and exits (no keep-alive holds them after it)", async () => {
    // A generous bound, not a timing: before the fix the process never exited.
    const { code, stderr } = await runWithBreakingStore(dir, url, schema, 60_000);
    assert.notEqual(code, "hung", `raes run did not exit after its store failed:\n${stderr}`);
    assert.notEqual(code, 0);
    // The table is gone: the store says its schema is damaged, with the server's words.
    assert.match(stderr, /^raes: store\.schema-damaged: /m);
    assert.match(stderr, /is damaged: relation "invocations" does not exist/);
    const held = await adminQuery(
      `SELECT participant_address FROM ${schema}.leases WHERE owner_id IS NOT NULL`,
    );
    assert.deepEqual(held, [], "its leases are given back, so another process takes them at once");
    assert.deepEqual(await adminQuery(`SELECT owner_id FROM ${schema}.runtime_processes`), [], "it left");
  });
});
