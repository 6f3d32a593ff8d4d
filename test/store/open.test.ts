import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  DEFAULT_STORE_URL,
  MemoryControlPlaneStore,
  openControlPlaneStore,
  StoreMissingError,
  StoreUnavailableError,
  StoreUrlError,
} from "../../src/store/index.js";
import { SqliteControlPlaneStore } from "../../src/store/sqlite/index.js";
import { P1 } from "./records.js";

function isUrlInvalid(error: unknown): boolean {
  return error instanceof StoreUrlError && error.code === "store.url-invalid";
}

describe("openControlPlaneStore", () => {
  it("opens memory: with the injected clock", async () => {
    const store = await openControlPlaneStore("memory:", { now: () => 10 });
    assert.ok(store instanceof MemoryControlPlaneStore);
    assert.equal(store.url, "memory:");
    assert.equal((await store.acquireLease(P1, "host-a", 5))?.expiresAt, 15);
  });

  it("refuses memory: where the store must already exist: it lives only in the process that made it", async () => {
    for (const options of [{ create: false }, { readOnly: true }]) {
      await assert.rejects(openControlPlaneStore("memory:", options), (error: unknown) => {
        assert.ok(error instanceof StoreMissingError);
        assert.equal(error.code, "store.missing");
        assert.match(error.message, /^no store at memory: \(a memory: store lives only inside the process/);
        return true;
      });
    }
  });

  it("opens the default sqlite URL relative to the cwd, creating its directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-open-"));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const store = await openControlPlaneStore(DEFAULT_STORE_URL, { now: () => 100 });
      assert.ok(store instanceof SqliteControlPlaneStore);
      assert.equal(store.url, DEFAULT_STORE_URL);
      assert.equal((await store.acquireLease(P1, "host-a", 5))?.expiresAt, 105);
      await store.close();
      assert.ok(existsSync(join(dir, ".raes", "control-plane.db")));
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("create: false opens no missing sqlite file and creates nothing (StoreMissingError)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-open-"));
    try {
      const url = `sqlite:${join(dir, "missing.db")}`;
      await assert.rejects(openControlPlaneStore(url, { create: false }), StoreMissingError);
      assert.equal(existsSync(join(dir, "missing.db")), false);
      await (await openControlPlaneStore(url)).close();
      await (await openControlPlaneStore(url, { create: false })).close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a read-only open of a missing sqlite file as unavailable", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-open-"));
    try {
      await assert.rejects(
        openControlPlaneStore(`sqlite:${join(dir, "missing.db")}`, { readOnly: true }),
        StoreUnavailableError,
      );
      assert.equal(existsSync(join(dir, "missing.db")), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses unknown schemes, an empty sqlite path and a bad postgres schema with store.url-invalid", async () => {
    await assert.rejects(openControlPlaneStore("mysql://127.0.0.1/test"), isUrlInvalid);
    await assert.rejects(openControlPlaneStore("memory"), isUrlInvalid);
    await assert.rejects(openControlPlaneStore("sqlite:"), isUrlInvalid);
    await assert.rejects(openControlPlaneStore("postgres://127.0.0.1/test?schema=Drop;Table"), isUrlInvalid);
  });

  it("refuses URL options ending in an unpaired backslash, which would swallow the store's own first option", async () => {
    for (const options of ["-c%20application_name%3Dx%5C", "%5C", "-c%20a%3Db%5C%5C%5C"]) {
      await assert.rejects(
        openControlPlaneStore(`postgres://127.0.0.1:1/test?options=${options}`),
        (error) => {
          assert.ok(isUrlInvalid(error));
          assert.match((error as Error).message, /unpaired backslash/);
          return true;
        },
      );
    }
    // An escaped backslash is the user's own: the refusal is not for it (port 1 then refuses the connection).
    await assert.rejects(
      openControlPlaneStore("postgres://127.0.0.1:1/test?options=-c%20a%3Db%5C%5C", {
        connectTimeoutMs: 500,
      }),
      StoreUnavailableError,
    );
  });

  it("refuses a numeric option that is not a whole number at or above its least, before opening anything", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-open-options-"));
    try {
      const bad = [
        { busyTimeoutMs: -1 },
        { busyTimeoutMs: 1.5 },
        { statementTimeoutMs: Number.NaN },
        { statementTimeoutMs: -10 },
        { connectTimeoutMs: Number.POSITIVE_INFINITY },
        { poolSize: 0 },
        // A longer timer fires at once in Node, and the server refuses a longer timeout.
        { busyTimeoutMs: 2 ** 31 },
        { connectTimeoutMs: 2 ** 31 },
        { statementTimeoutMs: 2 ** 31 - 5_000 },
        { poolSize: 10_001 },
        { statementTimeoutMs: "5000" as unknown as number },
        { cacheMiB: 0 },
        { cacheMiB: 65_537 },
        { cacheMiB: 0.5 },
      ];
      for (const options of bad) {
        const file = join(dir, "never.db");
        await assert.rejects(openControlPlaneStore(`sqlite:${file}`, options), (error) => {
          assert.ok(error instanceof RangeError);
          assert.match(
            error.message,
            new RegExp(
              `store option ${Object.keys(options)[0]} must be a whole number from \\d+ to \\d+, got `,
            ),
          );
          return true;
        });
        assert.equal(existsSync(file), false);
      }
      await assert.rejects(openControlPlaneStore("memory:", { poolSize: -2 }), RangeError);
      await assert.rejects(
        openControlPlaneStore("memory:", { statementTimeoutMs: "5000" as unknown as number }),
        /got string 5000/,
      );
      await (
        await openControlPlaneStore("memory:", { poolSize: 1, statementTimeoutMs: 0, busyTimeoutMs: 0 })
      ).close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
