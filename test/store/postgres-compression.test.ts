import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { openControlPlaneStore } from "../../src/store/open.js";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/postgres/schema.js";
import { adminQuery, freshSchema, postgresAvailable } from "./pg-available.js";
import { closeCommit, event, invocation, scheduler } from "./records.js";

const available = await postgresAvailable("postgres history compression");
const dropAtEnd: (() => Promise<void>)[] = [];
after(async () => {
  for (const drop of dropAtEnd) await drop();
});

/** Whether this server can compress with lz4 (PostgreSQL 14 or later, built with it). */
async function serverHasLz4(schema: string): Promise<boolean> {
  try {
    await adminQuery(
      `CREATE TABLE ${schema}.lz4_probe (b text COMPRESSION lz4); DROP TABLE ${schema}.lz4_probe`,
    );
    return true;
  } catch {
    return false;
  }
}

// Over PostgreSQL's compression threshold (about 2 KB), as a real history body is.
const LONG = "participant-implementation:".repeat(120);

if (!available) {
  it("postgres history compression", { skip: "POSTGRES UNAVAILABLE" }, () => undefined);
} else {
  describe("postgres schema step 10: history bodies compressed with lz4", () => {
    it("upgrades a schema left at version 9: new bodies lz4, bodies stored before kept as they were", async () => {
      const { schema, url, drop } = freshSchema();
      dropAtEnd.push(drop);
      await adminQuery(`CREATE SCHEMA ${schema}`);
      const v9 = MIGRATIONS.filter((m) => m.version <= 9);
      const before = invocation({ id: "inv-before", ordinal: 0 });
      const oldBody = JSON.stringify(event(before, "action_attempted", { actor_provenance: LONG }));
      await adminQuery(
        `SET search_path TO ${schema};
        CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
        ${v9.map((m) => m.sql).join("\n")}
        ${v9.map((m) => `INSERT INTO schema_migrations (version, name) VALUES (${m.version}, '${m.name.replaceAll("'", "''")}');`).join("\n")}
        UPDATE history_head SET last_sequence = 1;
        INSERT INTO history_events (sequence, participant_address, episode_id, action_instance_id, body)
          VALUES (1, '${before.participantAddress}', '${before.episodeId}', '${before.id}', '${oldBody}');`,
      );
      const lz4 = await serverHasLz4(schema);
      const store = await openControlPlaneStore(url);
      try {
        const [latest] = await adminQuery<{ v: number }>(
          `SELECT max(version) AS v FROM ${schema}.schema_migrations`,
        );
        assert.equal(latest?.v, SCHEMA_VERSION);
        const after = invocation({ id: "inv-after", ordinal: 1 });
        await store.openInvocation(after, scheduler({ nextOrdinal: 2 }));
        await store.commitInvocation({
          ...closeCommit(after),
          events: [event(after, "action_attempted", { actor_provenance: LONG })],
        });
        const rows = await adminQuery<{ sequence: string; how: string | null }>(
          `SELECT sequence::text, pg_column_compression(body) AS how FROM ${schema}.history_events ORDER BY sequence`,
        );
        assert.deepEqual(
          rows.map((r) => r.how),
          ["pglz", lz4 ? "lz4" : "pglz"],
        );
        const events = await store.listEvents();
        assert.deepEqual(
          events.map((e) => [e.sequence, e.action_instance_id, e.actor_provenance]),
          [
            [1, "inv-before", LONG],
            [2, "inv-after", LONG],
          ],
        );
      } finally {
        await store.close();
      }
    });
  });
}
