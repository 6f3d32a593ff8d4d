import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { verifyBundle, verifyStore, writeBundle } from "../../src/evidence/index.js";
import { type ControlPlaneStore, openControlPlaneStore, type StoreReader } from "../../src/store/index.js";
import { freshSchema, postgresAvailable } from "../store/pg-available.js";
import { closeCommit, invocation, P1, P2, scheduler } from "../store/records.js";

const P3 = "participant:green/participant-latecomer";
let ordinal = 0;

/** One close of `participant`: three chained events. */
async function close(store: ControlPlaneStore, participant: string): Promise<void> {
  ordinal += 1;
  const inv = invocation({ id: `inv-${ordinal}`, participantAddress: participant, ordinal });
  await store.openInvocation(inv, scheduler({ participantAddress: participant }));
  await store.commitInvocation(closeCommit(inv as never));
}

/** Four closes of P1 and P2: 12 events. */
async function fill(store: ControlPlaneStore): Promise<void> {
  for (const p of [P1, P2, P1, P2]) await close(store, p);
}

/**
 * `reader`, with `writer` appending (a close of an existing participant and of a new one) right after
 * the first history page is read: what a runtime committing while `raes verify` reads does, made
 * deterministic.
 */
function appendingAfterFirstPage(
  reader: ControlPlaneStore,
  writer: ControlPlaneStore,
): Pick<ControlPlaneStore, "readSnapshot"> {
  return {
    readSnapshot: (work) =>
      reader.readSnapshot((reads) => {
        let pages = 0;
        const wrapped: StoreReader = {
          ...reads,
          readChainPage: async (after, limit) => {
            const page = await reads.readChainPage(after, limit);
            pages += 1;
            if (pages === 1) {
              await close(writer, P1);
              await close(writer, P3);
            }
            return page;
          },
        };
        return work(wrapped);
      }),
  };
}

/** The snapshot checks every store must pass, on a store opened by `open`. */
function snapshotChecks(open: () => Promise<{ url: string; done?: () => Promise<void> }>): void {
  it("verify reads one snapshot: a writer appending between its page reads is not taken for tampering", async () => {
    const { url } = await open();
    const writer = await openControlPlaneStore(url);
    await fill(writer);
    const reader = await openControlPlaneStore(url, { create: false, readOnly: true });
    try {
      const report = await verifyStore(appendingAfterFirstPage(reader, writer), 4);
      assert.equal(report.ok, true, JSON.stringify(report.failure));
      assert.deepEqual([report.events, report.participants], [12, 2], "the counts of its snapshot");
      const later = await verifyStore(reader, 4);
      assert.deepEqual(
        [later.ok, later.events, later.participants],
        [true, 18, 3],
        "the appends, read after",
      );
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it("export reads one snapshot: its bundle verifies however much is appended while it is written", async () => {
    const { url } = await open();
    const writer = await openControlPlaneStore(url);
    await fill(writer);
    const reader = await openControlPlaneStore(url, { create: false });
    const dir = mkdtempSync(join(tmpdir(), "raes-snapshot-bundle-"));
    try {
      const file = join(dir, "evidence.jsonl");
      const summary = await writeBundle(appendingAfterFirstPage(reader, writer), file, { version: "0" });
      assert.deepEqual([summary.events, summary.participants], [12, 2]);
      const report = await verifyBundle(file);
      assert.equal(report.ok, true, report.problems.join("\n"));
      assert.equal(report.chains?.events, 12);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await reader.close();
      await writer.close();
    }
  });
}

describe("raes verify and raes export over a SQLite store others append to", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-snapshot-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  snapshotChecks(async () => {
    n += 1;
    return { url: `sqlite:${join(dir, `store-${n}.db`)}` };
  });
});

describe("raes verify and raes export over a PostgreSQL store others append to", async () => {
  if (!(await postgresAvailable("evidence snapshot tests"))) return;
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
  });
  snapshotChecks(async () => {
    const { url, drop } = freshSchema("raes_snapshot");
    drops.push(drop);
    return { url };
  });
});
