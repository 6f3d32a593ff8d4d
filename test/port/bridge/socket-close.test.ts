import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connectToolActionPort, serveToolActionPort } from "../../../src/index.js";
import { closedSignal } from "../../../src/port/index.js";
import { exampleModel } from "../../helpers/example.js";
import { codeOf, outcomeFor, requestFor } from "../../helpers/tool-requests.js";
import { openCore } from "../support/core.js";
import { oneInvocation } from "../support/invocation.js";

describe("closing a served port", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-socket-close-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("serves on a fixed path with a fixed token (desktop MCP hosts), and refuses a malformed token", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const token = "fixed-token-for-a-desktop-config-0123456789";
          const socketPath = join(dir, "fixed.sock");
          await assert.rejects(serveToolActionPort(port, { socketPath, token: "short" }), TypeError);
          const served = await serveToolActionPort(port, { socketPath, token });
          try {
            assert.equal(served.token, token);
            const remote = await connectToolActionPort({ socketPath, token });
            assert.equal(codeOf(await remote.admit(requestFor(remote, "fixed"))), "admitted");
            await assert.rejects(connectToolActionPort({ socketPath, token: `${token}x` }), /refused/);
          } finally {
            await served.close();
          }
        },
      },
      async ({ manager }) => assert.equal((await manager.store.listToolActions({})).length, 1),
    );
  });

  it("answers the calls it received, then every later call of a connected peer with invocation_closed, never a lost connection", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "end.sock") });
          const remote = await connectToolActionPort({ socketPath: served.socketPath, token: served.token });
          const first = await remote.admit(requestFor(remote, "a"));
          assert.ok(first.admitted);
          assert.equal(codeOf(await remote.dispatch(first.actionInstanceId)), "accepted");
          // Pending when the close begins: the port answers it if the line arrived first, else the
          // bridge does; either way the caller gets an answer, not a lost connection.
          const pending = remote.admit(requestFor(remote, "pending"));
          await served.close();
          assert.ok(["admitted", "invocation_closed"].includes(codeOf(await pending)));
          const id = first.actionInstanceId;
          const later = await Promise.all([
            remote.admit(requestFor(remote, "b")),
            remote.dispatch(id),
            remote.complete(id, outcomeFor(remote, id)),
            remote.reportUnknown(id, "timeout"),
            remote.cancel(id),
          ]);
          assert.deepEqual(later.map(codeOf), Array(5).fill("invocation_closed"));
          assert.equal(
            codeOf(await remote.admit(requestFor(remote, "c"))),
            "invocation_closed",
            "and after the connection is gone",
          );
          return id;
        },
      },
      async ({ value: id = "", manager }) => {
        assert.equal((await manager.getOperation(id))?.settlement, "indeterminate", "close settled it");
        const admitted = await manager.store.listToolActions({});
        assert.deepEqual(
          admitted.filter((a) => a.toolCallId !== "pending").map((a) => a.toolCallId),
          ["a"],
          "nothing sent after the close was admitted",
        );
      },
    );
  });

  it("serves a line already written to the socket when the close begins: an outcome sent just before the peer's client got its answer", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "late.sock") });
          const remote = await connectToolActionPort({ socketPath: served.socketPath, token: served.token });
          const admitted = await remote.admit(requestFor(remote, "late"));
          assert.ok(admitted.admitted);
          const id = admitted.actionInstanceId;
          assert.equal(codeOf(await remote.dispatch(id)), "accepted");
          // The line is in the socket when this returns; the port has not read it yet.
          const completed = remote.complete(id, outcomeFor(remote, id));
          await served.close();
          assert.equal(codeOf(await completed), "ok");
          return id;
        },
      },
      async ({ value: id = "", manager }) => {
        assert.equal((await manager.getOperation(id))?.settlement, "succeeded");
      },
    );
  });

  it("leaves the next server on the same path serving when its close ends after that one started", async () => {
    const socketPath = join(dir, "reused.sock");
    const first = await openCore(exampleModel());
    const previous = await serveToolActionPort(first.core.port, { socketPath });
    // The offer's timeout closes the port: the served close starts by itself, and the harness
    // serves its next invocation on the same path before that close has ended.
    first.core.close();
    const next = await openCore(exampleModel());
    const served = await serveToolActionPort(next.core.port, { socketPath });
    try {
      await previous.close();
      assert.ok(existsSync(socketPath), "the next server's socket file is still there");
      const remote = await connectToolActionPort({ socketPath, token: served.token });
      assert.equal(codeOf(await remote.admit(requestFor(remote, "next"))), "admitted");
      assert.deepEqual(
        readdirSync(dir).filter((name) => name.includes("reused")),
        ["reused.sock"],
      );
    } finally {
      await served.close();
    }
    assert.equal(existsSync(socketPath), false, "its own close removes its file");
  });

  it("lets a caller wait on as many tools at once as it likes on the closed signal, with no leak warning", async () => {
    const { core } = await openCore(exampleModel());
    const served = await serveToolActionPort(core.port, { socketPath: join(dir, "many.sock") });
    const remote = await connectToolActionPort({ socketPath: served.socketPath, token: served.token });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      // A gateway's upstream calls in flight each listen, as many as the claim lets run at once.
      for (const signal of [closedSignal(core.port), closedSignal(remote)]) {
        assert.ok(signal);
        for (let call = 0; call < 16; call += 1)
          signal.addEventListener("abort", () => undefined, { once: true });
      }
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings, []);
    } finally {
      process.off("warning", onWarning);
      core.close();
      await served.close();
    }
  });

  it("serves a port whose invocation already closed only to close at once: its socket file goes without the harness's close", async () => {
    const { core } = await openCore(exampleModel());
    core.close();
    const socketPath = join(dir, "closed-before.sock");
    await serveToolActionPort(core.port, { socketPath });
    const gone = async () => {
      for (let turn = 0; turn < 100 && existsSync(socketPath); turn += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      return !existsSync(socketPath);
    };
    assert.ok(await gone(), "the served port closed by itself");
  });

  it("tells its peers the invocation closed as soon as the port closes (the offer's timeout), though the harness has not closed it yet", async () => {
    const { core } = await openCore(exampleModel());
    const served = await serveToolActionPort(core.port, { socketPath: join(dir, "expired.sock") });
    const remote = await connectToolActionPort({ socketPath: served.socketPath, token: served.token });
    const admitted = await remote.admit(requestFor(remote, "at-the-upstream"));
    assert.ok(admitted.admitted);
    const id = admitted.actionInstanceId;
    assert.equal(codeOf(await remote.dispatch(id)), "accepted");
    const [local, bridged] = [closedSignal(core.port), closedSignal(remote)];
    assert.ok(local && bridged && !local.aborted && !bridged.aborted, "both ends can tell, and it is open");
    assert.equal(closedSignal({ ...core.port }), undefined, "a wrapped port cannot tell");
    const told = new Promise<void>((resolve) => bridged.addEventListener("abort", () => resolve()));
    core.close();
    assert.equal(local.aborted, true, "at once, in process");
    await told;
    assert.equal(codeOf(await remote.complete(id, outcomeFor(remote, id))), "invocation_closed");
    const { settled } = await core.settleForClose();
    assert.equal(settled[0]?.settlement, "indeterminate");
    assert.equal(settled[0]?.unknownReason, "invocation_returned_without_outcome");
    await served.close();
  });
});
