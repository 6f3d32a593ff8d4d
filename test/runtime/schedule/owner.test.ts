import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { isDeadLocalOwner, newOwnerId } from "../../../src/runtime/index.js";
import { openControlPlaneStore } from "../../../src/store/index.js";
import { childNodeArgs } from "../../helpers/compiled/index.js";
import { EXAMPLE, ROOT } from "../../helpers/example.js";

const TAKER = join(ROOT, "test", "helpers", "child-lease-taker.ts");

/** A pid that no process of this namespace has: the pid of a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid as number;
}

function canUnsharePid(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root for unshare --pid";
  const probe = spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" });
  return probe.status === 0 ? undefined : "unshare --pid --fork --mount-proc is not available here";
}

describe("scheduler owner ids", () => {
  it("name the host, pid, boot id and PID namespace, so only a provably dead local owner is dead", async () => {
    const id = newOwnerId();
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const namespace = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
    const parts = id.split("/");
    assert.equal(parts[0], hostname());
    assert.equal(parts[1], String(process.pid));
    assert.equal(parts[3], `boot:${bootId}`);
    assert.equal(parts[4], `pidns:${namespace}`);
    assert.equal(isDeadLocalOwner(id), false, "this live process is not dead");
    const dead = await deadPid();
    const deadId = [parts[0], dead, "x", parts[3], parts[4]].join("/");
    assert.equal(
      isDeadLocalOwner(deadId),
      true,
      "an exited process of this host, boot and namespace is dead",
    );
  });

  it("never count an owner dead whose namespace, boot or host differs, or whose id has the old form", async () => {
    const dead = await deadPid();
    const [host, , , boot, pidns] = newOwnerId().split("/") as [string, string, string, string, string];
    for (const id of [
      `${host}/${dead}/x/${boot}/pidns:1`,
      `${host}/${dead}/x/boot:00000000-0000-0000-0000-000000000000/${pidns}`,
      `other-${host}/${dead}/x/${boot}/${pidns}`,
      `${host}/${dead}/x`,
      `${host}/${dead}`,
      `${host}/${dead}/x/${boot}/${pidns}/extra`,
      `${host}/0/x/${boot}/${pidns}`,
      `${host}/-5/x/${boot}/${pidns}`,
      "",
    ]) {
      assert.equal(isDeadLocalOwner(id), false, id);
    }
  });
});

describe("lease takeover across PID namespaces", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-owner-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const skip = canUnsharePid();

  it("a runtime in another PID namespace on this host does not take a live owner's lease", {
    skip: skip === undefined ? false : `skipped: ${skip}`,
  }, async () => {
    const url = `sqlite:${join(dir, "ns.db")}`;
    const store = await openControlPlaneStore(url);
    try {
      // This test process is the live owner; its pid does not exist inside a fresh PID namespace.
      const lease = await store.acquireLease(EXAMPLE.participant, newOwnerId(), 600_000);
      assert.ok(lease);
      const taker = spawnSync(
        "unshare",
        ["--pid", "--fork", "--mount-proc", process.execPath, ...childNodeArgs(TAKER, [url])],
        { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
      );
      assert.equal(taker.status, 0, taker.stderr);
      const [, owned, takerId] = /^OWNED (\d+) (\S+)$/m.exec(taker.stdout) ?? [];
      assert.ok(takerId, taker.stdout);
      assert.equal(owned, "0", "the live owner's participant was not taken");
      assert.notEqual(
        takerId?.split("/")[4],
        newOwnerId().split("/")[4],
        "the taker ran in another namespace",
      );
      assert.equal((await store.getLease(EXAMPLE.participant))?.ownerId, lease.ownerId);
    } finally {
      await store.close();
    }
  });

  it("a runtime in this namespace takes the lease of an owner that has exited at once", async () => {
    const url = `sqlite:${join(dir, "dead.db")}`;
    const store = await openControlPlaneStore(url);
    try {
      const [host, , , boot, pidns] = newOwnerId().split("/");
      const deadOwner = [host, await deadPid(), "gone", boot, pidns].join("/");
      assert.ok(await store.acquireLease(EXAMPLE.participant, deadOwner, 600_000));
      const taker = spawnSync(process.execPath, childNodeArgs(TAKER, [url]), {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, NODE_OPTIONS: "" },
      });
      assert.equal(taker.status, 0, taker.stderr);
      assert.match(taker.stdout, /^OWNED 1 /m);
    } finally {
      await store.close();
    }
  });
});
