import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { verifyBundle, writeBundle } from "../../src/evidence/index.js";
import { type ControlPlaneStore, MemoryControlPlaneStore } from "../../src/store/index.js";
import { runKnownHistory } from "../fixtures/history/scripted-run.js";

/** `store`, recording the limit of every operation listing and counting reads by id. */
function watched(store: ControlPlaneStore): {
  store: ControlPlaneStore;
  limits: number[];
  gets: () => number;
} {
  const limits: number[] = [];
  let gets = 0;
  const proxy = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      // The memory store's snapshot is its live reads: read through this proxy too.
      if (property === "readSnapshot") return (work: (reads: ControlPlaneStore) => unknown) => work(proxy);
      if (property === "getOperation")
        return (id: string) => {
          gets += 1;
          return target.getOperation(id);
        };
      if (property === "listOperations")
        return (query: { limit?: number }) => {
          limits.push(query.limit ?? Number.NaN);
          return target.listOperations(query);
        };
      return value.bind(target);
    },
  });
  return { store: proxy, limits, gets: () => gets };
}

function operationLines(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.startsWith('{"kind":"operation"'));
}

describe("raes export --bundle reads operations a page at a time", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-bundle-pages-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("writes every operation oldest first, as read by id, from pages of bounded size and no read per operation", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const all = await inner.listOperations({ limit: Number.MAX_SAFE_INTEGER });
    assert.ok(all.length > 6, "several pages of 3");
    const expected = [];
    for (const entry of [...all].reverse()) expected.push(await inner.getOperation(entry.id));
    const seen = watched(inner);
    const file = join(dir, "paged.jsonl");
    const now = () => "2026-01-01T00:00:00.000000Z";
    const summary = await writeBundle(seen.store, file, { version: "0", pageSize: 3, now });
    assert.equal(summary.operations, all.length);
    assert.deepEqual(
      operationLines(file).map((line) => JSON.parse(line).operation),
      JSON.parse(JSON.stringify(expected)),
    );
    assert.equal(seen.gets(), 0, "no read per operation");
    assert.ok(seen.limits.length > 2 && seen.limits.every((limit) => limit <= 3), `limits ${seen.limits}`);
    // The same lines as one page holding every operation.
    const whole = join(dir, "whole.jsonl");
    await writeBundle(inner, whole, { version: "0", pageSize: 10_000, now });
    assert.deepEqual(operationLines(file), operationLines(whole));
    assert.equal((await verifyBundle(file)).ok, true);
  });

  it("gives every operation once, oldest first, across pages that do not divide them evenly", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const count = (await inner.listOperations({ limit: Number.MAX_SAFE_INTEGER })).length;
    const { operationPagesOldestFirst } = await import("../../src/store/index.js");
    let walked = 0;
    const pages = operationPagesOldestFirst(inner, 4);
    for await (const page of pages) {
      walked += page.length;
      const sorted = [...page].sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
      assert.deepEqual(
        page.map((e) => e.createdAt),
        sorted.map((e) => e.createdAt),
      );
    }
    assert.equal(walked, count);
  });
});
