import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  BridgeLimits,
  connectToolActionPort,
  type ServedToolActionPort,
  SocketRefusal,
  serveToolActionPort,
} from "../../../src/port/index.js";
import { exampleModel } from "../../helpers/example.js";
import { codeOf, requestFor } from "../../helpers/tool-requests.js";
import { openCore } from "../support/core.js";
import { RawSession } from "../support/raw-socket.js";

/** Reads what the server says before it closes the connection: its refusal, then the end. */
async function refusalThenClose(session: RawSession): Promise<unknown> {
  const first = await session.read();
  const second = await session.read();
  assert.deepEqual(second, { closed: true }, "the server closed the connection after its refusal");
  return "line" in first ? first.line : first;
}

describe("unauthenticated connections cannot exhaust a served port", () => {
  let dir = "";
  let served: ServedToolActionPort;
  let n = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-admission-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function serve(): Promise<ServedToolActionPort> {
    const { core } = await openCore(exampleModel());
    served = await serveToolActionPort(core.port, { socketPath: join(dir, `p${n++}.sock`) });
    return served;
  }

  it("a connection that never sends its token is closed at the authentication deadline", {
    timeout: 10 * BridgeLimits.authDeadlineMs,
  }, async () => {
    const port = await serve();
    try {
      const idle = await RawSession.open(port.socketPath);
      assert.deepEqual(await refusalThenClose(idle), { error: SocketRefusal.auth_timeout });
    } finally {
      await port.close();
    }
  });

  it("a connection that trickles bytes without a newline is closed at the same deadline", {
    timeout: 10 * BridgeLimits.authDeadlineMs,
  }, async () => {
    const port = await serve();
    try {
      const slow = await RawSession.open(port.socketPath);
      const drip = setInterval(() => slow.send("x"), 50);
      try {
        assert.deepEqual(await refusalThenClose(slow), { error: SocketRefusal.auth_timeout });
      } finally {
        clearInterval(drip);
      }
    } finally {
      await port.close();
    }
  });

  it("more than a few KB before the token closes the connection at once", { timeout: 20_000 }, async () => {
    const port = await serve();
    try {
      const greedy = await RawSession.open(port.socketPath);
      greedy.send(Buffer.alloc(BridgeLimits.maxPreAuthBytes + 1, 0x61));
      assert.deepEqual(await refusalThenClose(greedy), { error: SocketRefusal.frame_too_large });
    } finally {
      await port.close();
    }
  });

  it("past the cap of unauthenticated connections the oldest is evicted, and the token holder still gets in", {
    timeout: 20_000,
  }, async () => {
    const port = await serve();
    try {
      const idle: RawSession[] = [];
      for (let i = 0; i < BridgeLimits.maxPendingConnections; i++)
        idle.push(await RawSession.open(port.socketPath));
      const newest = await RawSession.open(port.socketPath);
      assert.deepEqual(await refusalThenClose(idle[0] as RawSession), {
        error: SocketRefusal.too_many_connections,
      });
      const remote = await connectToolActionPort({ socketPath: port.socketPath, token: port.token });
      assert.equal(codeOf(await remote.cancel("nothing")), "unknown_action");
      for (const session of [...idle, newest]) session.close();
    } finally {
      await port.close();
    }
  });

  it("past the cap of authenticated connections a new one is refused", { timeout: 20_000 }, async () => {
    const port = await serve();
    try {
      const sessions: RawSession[] = [];
      for (let i = 0; i < BridgeLimits.maxAuthenticatedConnections; i++)
        sessions.push(await RawSession.open(port.socketPath, port.token));
      const extra = await RawSession.open(port.socketPath);
      extra.send(`${JSON.stringify({ token: port.token })}\n`);
      assert.deepEqual(await refusalThenClose(extra), { error: SocketRefusal.too_many_connections });
      sessions.pop()?.close();
      const remote = await connectToolActionPort({ socketPath: port.socketPath, token: port.token });
      assert.equal(codeOf(await remote.admit(requestFor(remote, "in"))), "admitted");
      for (const session of sessions) session.close();
    } finally {
      await port.close();
    }
  });

  it("after the token, a line over the frame bound closes the connection, even when its newline is in the same write", {
    timeout: 20_000,
  }, async () => {
    const port = await serve();
    try {
      const big = JSON.stringify({ id: 1, method: "cancel", args: ["x".repeat(BridgeLimits.maxFrameBytes)] });
      const session = await RawSession.open(port.socketPath, port.token);
      session.send(`${big}\n`);
      assert.deepEqual(await refusalThenClose(session), { error: SocketRefusal.frame_too_large });
      const trickled = await RawSession.open(port.socketPath, port.token);
      trickled.send(big.slice(0, BridgeLimits.maxFrameBytes / 2));
      trickled.send(big.slice(BridgeLimits.maxFrameBytes / 2));
      assert.deepEqual(await refusalThenClose(trickled), { error: SocketRefusal.frame_too_large });
      const remote = await connectToolActionPort({ socketPath: port.socketPath, token: port.token });
      assert.equal(codeOf(await remote.cancel("nothing")), "unknown_action");
    } finally {
      await port.close();
    }
  });
});
