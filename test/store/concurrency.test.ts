import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { HistoryEvent } from "../../src/history/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { childNodeArgs } from "../helpers/compiled/index.js";
import { freshSchema, postgresAvailable } from "./pg-available.js";
import { clock } from "./records.js";

const WRITER = fileURLToPath(new URL("./concurrent-writer.ts", import.meta.url));
const CLOCK_WRITER = fileURLToPath(new URL("./concurrent-clock.ts", import.meta.url));
const PROCESSES = 4;
const ACTIONS = 5;
const ADVANCES = 50;
const STEP = 3;

function runWriter(url: string, id: string): Promise<void> {
  return runChild(id, WRITER, [url, id, String(ACTIONS)]);
}

function runChild(id: string, script: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, childNodeArgs(script, args), {
      stdio: ["ignore", "inherit", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`writer ${id} exited ${code}: ${stderr}`)),
    );
  });
}

/** Several processes open (and migrate) the same store at once and write through it; nothing is lost or reordered. */
async function assertConcurrentWriters(url: string): Promise<void> {
  const ids = Array.from({ length: PROCESSES }, (_, i) => `inv-${i}`);
  await Promise.all(ids.map((id) => runWriter(url, id)));
  const store = await openControlPlaneStore(url);
  try {
    assert.deepEqual(await store.listOpenInvocations(), []);
    for (const id of ids) assert.equal((await store.getInvocation(id))?.state, "succeeded");
    const actions = await store.listToolActions({ phase: "settled" });
    assert.equal(actions.length, PROCESSES * ACTIONS);
    const events = await store.listEvents();
    assert.deepEqual(
      events.map((e) => e.sequence),
      Array.from({ length: PROCESSES * 3 }, (_, i) => i + 1),
    );
    const byCommit = new Map<string, HistoryEvent[]>();
    for (const e of events)
      byCommit.set(e.action_instance_id, [...(byCommit.get(e.action_instance_id) ?? []), e]);
    for (const triple of byCommit.values()) {
      assert.deepEqual(
        triple.map((e) => e.event_type),
        ["action_attempted", "state_transition_recorded", "observation_emitted"],
      );
      const [first, , last] = triple.map((e) => e.sequence);
      assert.equal(Number(last) - Number(first), 2, "one commit's events are consecutive");
    }
  } finally {
    await store.close();
  }
}

/** Processes sharing one clock each advance it; no advance is lost to another process's write. */
async function assertConcurrentClock(url: string): Promise<void> {
  const ids = Array.from({ length: PROCESSES }, (_, i) => `clock-${i}`);
  await Promise.all(ids.map((id) => runChild(id, CLOCK_WRITER, [url, String(ADVANCES), String(STEP)])));
  const store = await openControlPlaneStore(url);
  try {
    const shared = await store.getClock(clock().clockAddress);
    assert.equal(shared?.tick, PROCESSES * ADVANCES * STEP);
    assert.equal(shared?.segment, clock().segment);
  } finally {
    await store.close();
  }
}

const postgres = await postgresAvailable("postgres concurrent writers");

describe("concurrent processes on one store", () => {
  it("sqlite: writers in separate processes share one file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-concurrent-"));
    try {
      await assertConcurrentWriters(`sqlite:${join(dir, "shared.db")}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sqlite: clock advances from separate processes all land", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-concurrent-"));
    try {
      await assertConcurrentClock(`sqlite:${join(dir, "shared.db")}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
  });
  it("postgres: writers in separate processes share one schema", {
    skip: postgres ? false : "POSTGRES UNAVAILABLE",
  }, async () => {
    const { url, drop } = freshSchema("raes_concurrent");
    drops.push(drop);
    await assertConcurrentWriters(url);
  });

  it("postgres: clock advances from separate processes all land", {
    skip: postgres ? false : "POSTGRES UNAVAILABLE",
  }, async () => {
    const { url, drop } = freshSchema("raes_concurrent");
    drops.push(drop);
    await assertConcurrentClock(url);
  });
});
