import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { writeBundle } from "../../src/evidence/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
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
