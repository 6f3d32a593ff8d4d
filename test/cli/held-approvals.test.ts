import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { newOwnerId } from "../../src/operations/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { invocation, scheduler, toolAction } from "../store/records.js";
import { raes } from "./cli.js";

/** A SQLite store holding one call for approval, the participant's lease held by `owner`. */
async function heldCall(owner: string): Promise<{ url: string; id: string }> {
  const dir = mkdtempSync(join(tmpdir(), "raes-held-"));
  const url = `sqlite:${join(dir, "cp.db")}`;
  const store = await openControlPlaneStore(url);
  try {
    const inv = invocation();
    await store.openInvocation(inv, scheduler({ attempts: 1 }));
    const action = toolAction(inv, 1);
    await store.insertToolAction(action);
    const requestedAt = new Date().toISOString();
    assert.ok(
      await store.recordApproval(
        action.id,
        { state: "pending", requestedAt, timeoutSeconds: 3600 },
        undefined,
      ),
    );
    assert.ok(await store.acquireLease(action.participantAddress, owner, 60_000));
    return { url, id: action.id };
  } finally {
    await store.close();
  }
}

/** The commands printed under the --needs-operator table for held calls. */
function heldLines(stdout: string): string[] {
  const at = stdout.indexOf("approve (the tool runs once) or deny (it never runs) each held call:");
  assert.ok(at >= 0, stdout);
  return stdout.slice(at).trimEnd().split("\n").slice(1);
}

describe("raes operations --needs-operator, held calls", () => {
  it("offers approve and deny while the runtime holding the call lives", async () => {
    // This test's own process holds the lease: a live owner.
    const { url } = await heldCall(newOwnerId());
    const listed = await raes(["operations", "--needs-operator", "--store", url]);
    assert.equal(listed.code, 0, listed.stderr);
    const [approve, deny, more] = heldLines(listed.stdout);
    assert.match(approve ?? "", / approve \S+ --store /);
    assert.match(deny ?? "", / deny \S+ --store /);
    assert.equal(more, undefined);
  });

  it("offers only deny, and says why, when the runtime holding the call is gone: its approve would be refused", async () => {
    // A process of this host that has exited holds the lease, as after a SIGKILL.
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const [host, , ...rest] = newOwnerId().split("/");
    const { url, id } = await heldCall([host, String(gone), ...rest].join("/"));
    const listed = await raes(["operations", "--needs-operator", "--store", url]);
    assert.equal(listed.code, 0, listed.stderr);
    const [deny, why, more] = heldLines(listed.stdout);
    const short = / deny (\S+) --store /.exec(deny ?? "")?.[1];
    assert.ok(short, deny);
    assert.match(
      why ?? "",
      new RegExp(
        `^ +\\(no approve: the runtime holding ${id.replace(/[.:]/g, "\\$&")} \\(pid ${gone}\\) is gone`,
      ),
    );
    assert.equal(more, undefined);
    assert.doesNotMatch(listed.stdout, / approve \S+ --store /);
    // The approve it no longer prints is refused; the deny it prints runs as printed.
    const approve = await raes(["approve", short, "--store", url]);
    assert.match(approve.stderr, /approval\.runtime-gone/);
    const command = (deny ?? "").trim().split(" ");
    const denied = spawnSync(command[0] as string, command.slice(1), { encoding: "utf8" });
    assert.equal(denied.status, 0, denied.stderr);
  });
});
