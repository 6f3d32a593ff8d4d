import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MessagePort, Worker } from "node:worker_threads";
import { exposeToolActionPort, SocketRefusal, serveToolActionPort } from "../../../src/port/index.js";
import { exampleModel } from "../../helpers/example.js";
import { requestFor } from "../../helpers/tool-requests.js";
import { openCore } from "../support/core.js";
import { RawSession, watchProcessFaults } from "../support/raw-socket.js";

/** The frame of the review: a cancel whose argument is `depth` arrays nested in one another. */
function nestedCancel(id: number, depth: number): string {
  return `{"id":${id},"method":"cancel","args":[${"[".repeat(depth)}${"]".repeat(depth)}]}`;
}

function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** The next reply on a bridge MessagePort that answers `id`. */
function replyOn(port: MessagePort, id: number): Promise<unknown> {
  return new Promise((resolve) => {
    const listener = (message: { id?: unknown }) => {
      if (message.id !== id) return;
      port.off("message", listener);
      resolve(message);
    };
    port.on("message", listener);
  });
}

describe("one authenticated frame cannot take the process down", () => {
  let dir = "";
  let watch: ReturnType<typeof watchProcessFaults>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-frames-"));
    watch = watchProcessFaults();
  });
  beforeEach(() => {
    watch.faults.length = 0;
  });
  after(() => {
    watch.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("socket: the review's 20 KB cancel nested 10 000 deep answers request_invalid, and the connection serves on", {
    timeout: 20_000,
  }, async () => {
    const { core } = await openCore(exampleModel());
    const served = await serveToolActionPort(core.port, { socketPath: join(dir, "deep.sock") });
    try {
      const session = await RawSession.open(served.socketPath, served.token);
      session.send(`${nestedCancel(3, 10_000)}\n`);
      assert.deepEqual(await session.read(), {
        line: { id: 3, result: { ok: false, refusal: "request_invalid" } },
      });
      session.send(`${JSON.stringify({ id: 4, method: "admit", args: [requestFor(core.port, "after")] })}\n`);
      const answer = await session.read();
      assert.deepEqual(answer, {
        line: {
          id: 4,
          result: { admitted: true, actionInstanceId: `${core.port.invocationActionInstanceId}:tool=1` },
        },
      });
      session.close();
      assert.deepEqual(watch.faults, []);
    } finally {
      await served.close();
    }
  });

  it("socket: 100 000 levels in one frame answer request_invalid too", { timeout: 20_000 }, async () => {
    const { core } = await openCore(exampleModel());
    const served = await serveToolActionPort(core.port, { socketPath: join(dir, "deeper.sock") });
    try {
      const session = await RawSession.open(served.socketPath, served.token);
      session.send(`${nestedCancel(5, 100_000)}\n`);
      assert.deepEqual(await session.read(), {
        line: { id: 5, result: { ok: false, refusal: "request_invalid" } },
      });
      session.close();
      assert.deepEqual(watch.faults, []);
    } finally {
      await served.close();
    }
  });

  it("socket: an unparseable line closes the connection with bridge.frame-invalid; the port serves a new one", {
    timeout: 20_000,
  }, async () => {
    const { core } = await openCore(exampleModel());
    const served = await serveToolActionPort(core.port, { socketPath: join(dir, "garbage.sock") });
    try {
      for (const garbage of [
        '{"id":1,"method":"cancel","args":[',
        "\u0000\u00ff not json",
        "[1,2]",
        '{"id":"x"}',
      ]) {
        const session = await RawSession.open(served.socketPath, served.token);
        session.send(`${garbage}\n`);
        assert.deepEqual(await session.read(), { line: { error: SocketRefusal.frame_invalid } }, garbage);
        assert.deepEqual(await session.read(), { closed: true });
      }
      const session = await RawSession.open(served.socketPath, served.token);
      session.send(`${JSON.stringify({ id: 1, method: "cancel", args: ["nothing"] })}\n`);
      assert.deepEqual(await session.read(), {
        line: { id: 1, result: { ok: false, refusal: "unknown_action" } },
      });
      session.close();
      assert.deepEqual(watch.faults, []);
    } finally {
      await served.close();
    }
  });

  it("socket: calls sent before a bad line are all answered, then the connection is refused", async () => {
    const { core } = await openCore(exampleModel());
    const served = await serveToolActionPort(core.port, { socketPath: join(dir, "pipelined.sock") });
    try {
      const session = await RawSession.open(served.socketPath, served.token);
      const calls = Array.from({ length: 100 }, (_, i) =>
        JSON.stringify({ id: i, method: "cancel", args: [`nothing-${i}`] }),
      );
      session.send(`${calls.join("\n")}\nnot json\n${calls[0]}\n`);
      const ids: number[] = [];
      for (let i = 0; i < calls.length; i++) {
        const read = await session.read();
        assert.ok("line" in read, "an answer, not the end");
        assert.deepEqual((read.line as { result: unknown }).result, { ok: false, refusal: "unknown_action" });
        ids.push((read.line as { id: number }).id);
      }
      assert.deepEqual(
        ids.sort((a, b) => a - b),
        calls.map((_, i) => i),
      );
      assert.deepEqual(await session.read(), { line: { error: SocketRefusal.frame_invalid } });
      assert.deepEqual(await session.read(), { closed: true }, "nothing after the bad line was served");
    } finally {
      await served.close();
    }
  });

  it("socket: an own __proto__ key is an unknown field, refused as the in-process port refuses it", async () => {
    const { core } = await openCore(exampleModel());
    const served = await serveToolActionPort(core.port, { socketPath: join(dir, "proto.sock") });
    try {
      const request = JSON.stringify(requestFor(core.port, "proto"));
      const withProto = `${request.slice(0, -1)},"__proto__":null}`;
      const inProcess = await core.port.admit(JSON.parse(withProto));
      assert.deepEqual(inProcess, { admitted: false, refusal: "request_invalid" });
      const session = await RawSession.open(served.socketPath, served.token);
      session.send(`{"id":1,"method":"admit","args":[${withProto}]}\n`);
      assert.deepEqual(await session.read(), { line: { id: 1, result: inProcess } });
      session.close();
    } finally {
      await served.close();
    }
  });

  it("worker bridge: a message nested 3 000 deep answers request_invalid, and the bridge serves on", {
    timeout: 20_000,
  }, async () => {
    const { core } = await openCore(exampleModel());
    const peer = exposeToolActionPort(core.port);
    try {
      const deep = replyOn(peer, 1);
      peer.postMessage({ id: 1, method: "cancel", args: [nested(3_000)] });
      assert.deepEqual(await deep, { id: 1, result: { ok: false, refusal: "request_invalid" } });
      const next = replyOn(peer, 2);
      peer.postMessage({ id: 2, method: "cancel", args: ["nothing"] });
      assert.deepEqual(await next, { id: 2, result: { ok: false, refusal: "unknown_action" } });
      assert.deepEqual(watch.faults, []);
    } finally {
      peer.close();
    }
  });

  it("worker bridge: a real worker with a large stack posting 100 000 levels cannot hurt the port's thread", {
    timeout: 30_000,
  }, async () => {
    const { core } = await openCore(exampleModel());
    const peer = exposeToolActionPort(core.port);
    // The worker's stack is large enough to serialize what the port's thread may not deserialize.
    const source = `
      const { workerData, parentPort } = require("node:worker_threads");
      const port = workerData.port;
      const replies = [];
      let sent = "sent";
      port.on("message", (m) => {
        if (m.id === undefined) return;
        replies.push(m);
        if (m.id === 2) { parentPort.postMessage({ sent, replies }); port.close(); }
      });
      let value = [];
      for (let i = 0; i < 100000; i++) value = [value];
      try { port.postMessage({ id: 1, method: "cancel", args: [value] }); } catch { sent = "refused by the sender"; }
      port.postMessage({ id: 2, method: "cancel", args: ["nothing"] });
    `;
    const worker = new Worker(source, {
      eval: true,
      workerData: { port: peer },
      transferList: [peer],
      resourceLimits: { stackSizeMb: 256 },
    });
    try {
      const report = await new Promise<{ sent: string; replies: Array<{ id: number }> }>((resolve) =>
        worker.once("message", resolve),
      );
      const byId = new Map(report.replies.map((r) => [r.id, r]));
      assert.deepEqual(byId.get(2), { id: 2, result: { ok: false, refusal: "unknown_action" } });
      // Delivered, the deep call is refused; undeliverable, it never reached the port at all.
      if (byId.has(1))
        assert.deepEqual(byId.get(1), { id: 1, result: { ok: false, refusal: "request_invalid" } });
      assert.deepEqual(watch.faults, []);
    } finally {
      await worker.terminate();
    }
  });
});
