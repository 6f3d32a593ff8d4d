import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { MemoryControlPlaneStore, StoreMissingError, StoreUnavailableError } from "../../src/store/index.js";
import { DEFAULT_STORE_URL, openControlPlaneStore, StoreUrlError } from "../../src/store/open.js";
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
});
