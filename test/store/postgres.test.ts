import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { StoreUnavailableError } from "../../src/store/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { runStoreContract } from "./contract.js";
import { adminQuery, freshSchema, postgresAvailable } from "./pg-available.js";
import { clock, P1 } from "./records.js";

const available = await postgresAvailable("postgres store contract");
const dropAtEnd: (() => Promise<void>)[] = [];
after(async () => {
  for (const drop of dropAtEnd) await drop();
});

if (!available) {
  it("postgres store contract", { skip: "POSTGRES UNAVAILABLE" }, () => undefined);
} else {
  runStoreContract("postgres", async () => {
    const { url, drop } = freshSchema();
    dropAtEnd.push(drop);
    const opened: { close(): Promise<void> }[] = [];
    const open = async () => {
      const store = await openControlPlaneStore(url);
      opened.push(store);
      return store;
    };
    const store = await open();
    return {
      store,
      reopen: open,
      cleanup: async () => {
        for (const s of opened) await s.close();
      },
    };
  });

  describe("postgres store specifics", () => {
    it("creates its schema, records one migration per version, and migrates once under concurrent opens", async () => {
      const { schema, url, drop } = freshSchema();
      dropAtEnd.push(drop);
      const stores = await Promise.all([1, 2, 3].map(() => openControlPlaneStore(url)));
      await Promise.all(stores.map((s) => s.close()));
      const versions = await adminQuery(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
      assert.deepEqual(versions, [{ version: 1 }]);
    });

    it("keeps the URL's own startup options alongside the schema", async () => {
      const { url, drop } = freshSchema();
      dropAtEnd.push(drop);
      const store = await openControlPlaneStore(
        `${url}&options=${encodeURIComponent("-c lock_timeout=5000")}`,
      );
      try {
        await store.saveClock(clock());
        assert.deepEqual(await store.getClock(clock().clockAddress), clock());
      } finally {
        await store.close();
      }
    });

    it("expires leases by the database clock", async () => {
      const { url, drop } = freshSchema();
      dropAtEnd.push(drop);
      const store = await openControlPlaneStore(url, { now: () => 0 });
      try {
        const [before] = await adminQuery<{ ms: string }>(
          "SELECT (extract(epoch FROM now()) * 1000)::bigint AS ms",
        );
        const lease = await store.acquireLease(P1, "host-a", 30_000);
        const [afterward] = await adminQuery<{ ms: string }>(
          "SELECT (extract(epoch FROM now()) * 1000)::bigint AS ms",
        );
        assert.ok(lease && before && afterward);
        assert.ok(lease.expiresAt >= Number(before.ms) + 30_000);
        assert.ok(lease.expiresAt <= Number(afterward.ms) + 30_000);
      } finally {
        await store.close();
      }
    });

    it("rejects opening an unreachable server with StoreUnavailableError", async () => {
      await assert.rejects(
        openControlPlaneStore("postgres://127.0.0.1:1/test", { connectTimeoutMs: 2_000 }),
        (error: unknown) => error instanceof StoreUnavailableError && /127\.0\.0\.1:1/.test(error.message),
      );
    });
  });
}
