import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { partialName } from "../../src/evidence/bundle-partial.js";
import { writeBundle } from "../../src/evidence/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { ChildScript } from "../helpers/child-process.js";
import { ROOT } from "../helpers/example.js";
import { closeCommit, invocation, P1, scheduler } from "../store/records.js";

describe("raes export --bundle writes beside the file and renames it only when whole", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-bundle-partial-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("an export that fails midway leaves no bundle and no partial file, and an existing file as it was", async () => {
    const store = await openControlPlaneStore(`sqlite:${join(dir, "store.db")}`);
    try {
      const inv = invocation({ id: "inv-1", participantAddress: P1, ordinal: 0 });
      await store.openInvocation(inv, scheduler({ participantAddress: P1 }));
      await store.commitInvocation(closeCommit(inv as never));
      // The store fails after the events were written, before the decisions.
      const failing = {
        readSnapshot: <T>(work: (reads: never) => Promise<T>) =>
          store.readSnapshot((reads) =>
            work({
              ...reads,
              readDecisionPage: () => Promise.reject(new Error("the disk went away")),
            } as never),
          ),
      };
      const before = readdirSync(dir).sort();
      await assert.rejects(
        writeBundle(failing, join(dir, "new.jsonl"), { version: "0" }),
        /the disk went away/,
      );
      assert.deepEqual(readdirSync(dir).sort(), before, "no bundle and no partial file");
      const existing = join(dir, "existing.jsonl");
      writeFileSync(existing, "an earlier bundle\n");
      await assert.rejects(writeBundle(failing, existing, { version: "0" }), /the disk went away/);
      assert.equal(readFileSync(existing, "utf8"), "an earlier bundle\n");
      assert.deepEqual(readdirSync(dir).sort(), [...before, "existing.jsonl"].sort());
      // The same store, not failing: the bundle is written whole.
      await writeBundle(store, join(dir, "new.jsonl"), { version: "0" });
      assert.ok(readdirSync(dir).includes("new.jsonl"));
    } finally {
      await store.close();
    }
  });
});

describe("raes export --bundle cleans what a killed export left, and syncs what it writes", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-bundle-stale-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function filledStore() {
    const store = await openControlPlaneStore(`sqlite:${join(dir, `store-${process.hrtime.bigint()}.db`)}`);
    const inv = invocation({ id: "inv-1", participantAddress: P1, ordinal: 0 });
    await store.openInvocation(inv, scheduler({ participantAddress: P1 }));
    await store.commitInvocation(closeCommit(inv as never));
    return store;
  }

  it("removes a partial of FILE whose process was killed, keeping a live process's and another host's", async () => {
    const store = await filledStore();
    try {
      // A process that ran and ended: its id names no running process, as a SIGKILLed export's.
      const dead = spawnSync(process.execPath, ["-e", ""]).pid as number;
      const file = join(dir, "evidence.jsonl");
      const stale = partialName(file, dead);
      const live = partialName(file, process.ppid);
      const elsewhere = partialName(file, dead, "another-host");
      const unrelated = join(dir, "other.jsonl.partial-1@x");
      for (const f of [stale, live, elsewhere, unrelated]) writeFileSync(f, "half a bundle");
      await writeBundle(store, file, { version: "0" });
      assert.equal(existsSync(stale), false, "the dead export's partial is removed");
      for (const kept of [live, elsewhere, unrelated]) assert.ok(existsSync(kept), kept);
      assert.ok(existsSync(file));
    } finally {
      await store.close();
    }
  });

  it("removes the partial file a SIGKILLed export left, at the next export to the same FILE", async () => {
    const store = await filledStore();
    const file = join(dir, "killed.jsonl");
    const child = ChildScript.start(join(ROOT, "test", "helpers", "child-export.ts"), [
      `sqlite:${join(dir, "killed-source.db")}`,
      file,
    ]);
    try {
      await child.waitFor((line) => line === "WRITING", 0, "the export writing its partial file");
      const left = partialName(file, child.pid);
      assert.ok(existsSync(left), "the export writes beside FILE");
      process.kill(child.pid, "SIGKILL");
      assert.equal((await child.exited).signal, "SIGKILL");
      assert.ok(existsSync(left), "a killed export cannot clean up after itself");
      await writeBundle(store, file, { version: "0" });
      assert.equal(existsSync(left), false);
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.startsWith("killed.jsonl")),
        ["killed.jsonl"],
      );
    } finally {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
      await store.close();
    }
  });

  it("refuses a missing folder with evidence.bundle-unwritable, creating nothing", async () => {
    const store = await filledStore();
    try {
      const file = join(dir, "missing", "evidence.jsonl");
      await assert.rejects(writeBundle(store, file, { version: "0" }), (error: Error & { code?: string }) => {
        assert.equal(error.code, "evidence.bundle-unwritable");
        return true;
      });
      assert.equal(existsSync(join(dir, "missing")), false);
    } finally {
      await store.close();
    }
  });

  it("syncs the bundle to disk before it takes its name, and its folder after", async () => {
    const store = await filledStore();
    const file = join(dir, "synced.jsonl");
    const handle = await open(join(dir, "probe"), "w");
    const prototype = Object.getPrototypeOf(handle) as { sync: () => Promise<void> };
    await handle.close();
    const original = prototype.sync;
    const named: boolean[] = [];
    prototype.sync = function (this: unknown) {
      // Whether the bundle had its name yet when this sync ran.
      named.push(existsSync(file));
      return original.call(this);
    };
    try {
      await writeBundle(store, file, { version: "0" });
    } finally {
      prototype.sync = original;
      await store.close();
    }
    assert.deepEqual(named, [false, true]);
  });
});
