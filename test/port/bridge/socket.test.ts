import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  connectToolActionPort,
  type InvocationToolActionPort,
  serveToolActionPort,
} from "../../../src/index.js";
import { childNodeArgs } from "../../helpers/compiled/index.js";
import { codeOf, outcomeFor, requestFor } from "../../helpers/tool-requests.js";
import { oneInvocation } from "../support/invocation.js";

const CLIENT = fileURLToPath(new URL("../support/socket-client.ts", import.meta.url));

/** Sends raw lines to a served socket and collects what comes back until the server closes it. */
function rawExchange(socketPath: string, lines: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
    socket.on("connect", () => {
      for (const line of lines) socket.write(`${line}\n`);
    });
  });
}

describe("socket bridge", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-socket-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("serves on a 0600 socket; a wrong or missing token is refused and reaches nothing", async () => {
    await oneInvocation(
      {
        body: async (port, { store }) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "auth.sock") });
          try {
            assert.equal(statSync(served.socketPath).mode & 0o777, 0o600);
            assert.equal(statSync(served.socketPath).isSocket(), true);
            assert.match(served.token, /^[0-9a-f]{64}$/);
            const wrong = `${served.token.slice(0, -1)}${served.token.endsWith("0") ? "1" : "0"}`;
            for (const token of [wrong, "", served.token.slice(0, 32)]) {
              await assert.rejects(
                connectToolActionPort({ socketPath: served.socketPath, token }),
                /refused/,
              );
            }
            const call = JSON.stringify({ id: 1, method: "admit", args: [requestFor(port, "sneak")] });
            const noToken = await rawExchange(served.socketPath, [call, call]);
            assert.equal(
              noToken,
              `${JSON.stringify({ error: "bridge.unauthorized" })}\n`,
              "no hello and no answer",
            );
            const badToken = await rawExchange(served.socketPath, [JSON.stringify({ token: wrong }), call]);
            assert.equal(badToken, `${JSON.stringify({ error: "bridge.unauthorized" })}\n`);
            assert.deepEqual(await store.listToolActions({}), [], "no unauthenticated call reached the port");
            const good = await connectToolActionPort({ socketPath: served.socketPath, token: served.token });
            assert.equal(good.invocationActionInstanceId, port.invocationActionInstanceId);
            assert.equal(codeOf(await good.admit(requestFor(good, "a"))), "admitted");
          } finally {
            await served.close();
          }
        },
      },
      async ({ events }) => assert.equal(events.filter((e) => e.invocation_tool_context).length, 3),
    );
  });

  it("another process drives the port through the socket while admitAction awaits", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "child.sock") });
          try {
            const { stdout } = await promisify(execFile)(
              process.execPath,
              childNodeArgs(CLIENT, [served.socketPath]),
              {
                env: { ...process.env, RAES_PORT_TOKEN: served.token },
              },
            );
            return JSON.parse(stdout) as { pid: number; invocation: string; answers: unknown[] };
          } finally {
            await served.close();
          }
        },
      },
      async ({ value, invocationId, manager, events }) => {
        assert.ok(value);
        assert.notEqual(value.pid, process.pid);
        assert.equal(value.invocation, invocationId);
        assert.deepEqual(
          value.answers.map((a) => codeOf(a as never)),
          ["admitted", "accepted", "ok", "admitted", "ok"],
        );
        assert.equal((await manager.getOperation(`${invocationId}:tool=1`))?.settlement, "succeeded");
        assert.equal((await manager.getOperation(`${invocationId}:tool=2`))?.settlement, "withheld");
        assert.equal(events.filter((e) => e.event_type === "action_attempted").length, 3);
      },
    );
  });

  it("answers invocation_closed for every call once the invocation has returned", async () => {
    let remote: InvocationToolActionPort | undefined;
    let close: () => Promise<void> = async () => undefined;
    await oneInvocation(
      {
        body: async (port) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "closed.sock") });
          close = served.close;
          remote = await connectToolActionPort({ socketPath: served.socketPath, token: served.token });
          const decision = await remote.admit(requestFor(remote, "a"));
          assert.ok(decision.admitted);
          assert.equal(codeOf(await remote.dispatch(decision.actionInstanceId)), "accepted");
          return decision.actionInstanceId;
        },
      },
      async ({ value: id = "", manager }) => {
        try {
          assert.ok(remote);
          const answers = await Promise.all([
            remote.admit(requestFor(remote, "b")),
            remote.dispatch(id),
            remote.complete(id, outcomeFor(remote, id)),
            remote.reportUnknown(id, "timeout"),
            remote.cancel(id),
          ]);
          assert.deepEqual(answers.map(codeOf), Array(5).fill("invocation_closed"));
          assert.equal(
            (await manager.getOperation(id))?.settlement,
            "indeterminate",
            "close settled it, not the late calls",
          );
        } finally {
          await close();
        }
      },
    );
  });
});
