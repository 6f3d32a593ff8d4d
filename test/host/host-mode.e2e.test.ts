import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Database from "better-sqlite3";
import { LOGIN_PATH, type PortalService, STALLED_PATH, startPortalService } from "../../src/demo/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { ChildStdioTransport } from "../helpers/child-stdio.js";
import { EXAMPLE_HOST_INPUTS, ROOT } from "../helpers/example.js";

const run = promisify(execFile);
const MAIN = join(ROOT, "dist", "cli", "main.js");
const SERVER = join(ROOT, "dist", "demo", "server.js");
const PARTICIPANT = "participant.behavior.participant-agent";
const HOST_ARGS = (store: string) => [
  MAIN,
  "mcp-gateway",
  ...EXAMPLE_HOST_INPUTS,
  "--map",
  join(ROOT, "examples", "demo", "mcp-map.yaml"),
  "--store",
  store,
  "--timeout-ms",
  "1500",
];

/** The outer invocations the store's history holds: each one's own action_attempted event. */
async function historyOf(store: string) {
  const opened = await openControlPlaneStore(store, { create: false });
  try {
    const events = await opened.listEvents({ participantAddress: PARTICIPANT });
    const invocations = events.filter(
      (e) => e.event_type === "action_attempted" && e.invocation_tool_context === undefined,
    );
    const tools = await opened.listToolActions({});
    return { invocations: invocations.map((e) => e.action_instance_id), tools };
  } finally {
    await opened.close();
  }
}

function codeOf(result: CallToolResult): unknown {
  return result._meta?.["raes/code"];
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** Waits for a process to be gone (the gateway commits the invocation before it exits). */
function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** What every transport's test drives: three sessions, each a fresh client. */
interface Transport {
  /** Opens a session; `end` ends it the way the transport's client does. */
  session(): Promise<{ client: Client; end(): Promise<void> }>;
}

function driveThreeSessions(
  name: string,
  make: (store: string, portal: PortalService) => Transport,
  /** Tests run after the three sessions, while the store and the portal are still there. */
  more: () => void = () => undefined,
): void {
  describe(`host mode over ${name}`, () => {
    let dir: string;
    let portal: PortalService;
    let store: string;
    let transport: Transport;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "raes-host-"));
      store = `sqlite:${join(dir, "control-plane.db")}`;
      portal = await startPortalService();
      transport = make(store, portal);
    });
    after(async () => {
      await portal.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("runs a permitted call upstream once and refuses an out-of-binding one, in the first session's invocation", async () => {
      const { client, end } = await transport.session();
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((t) => t.name).sort(), ["probe_login", "query_customer_db"]);
      const probe = (await client.callTool({ name: "probe_login", arguments: {} })) as CallToolResult;
      assert.notEqual(probe.isError, true, textOf(probe));
      const refused = (await client.callTool({ name: "query_customer_db", arguments: {} })) as CallToolResult;
      assert.equal(refused.isError, true);
      assert.equal(codeOf(refused), "target_outside_binding");
      await end();
      assert.equal(portal.requests()[LOGIN_PATH], 1);
      assert.equal(portal.requests()["/customers"], undefined);
      const history = await historyOf(store);
      assert.equal(history.invocations.length, 1);
      assert.deepEqual(
        history.tools.map((t) => [t.invocationId, t.settlement]),
        [[history.invocations[0], "succeeded"]],
      );
    });

    it("makes the second session a second invocation, whose unanswered call is indeterminate", async () => {
      const { client, end } = await transport.session();
      const stalled = (await client.callTool({
        name: "probe_login",
        arguments: { path: STALLED_PATH },
      })) as CallToolResult;
      assert.equal(codeOf(stalled), "upstream_timeout");
      assert.equal(stalled._meta?.["raes/settlement"], "indeterminate");
      await end();
      const history = await historyOf(store);
      assert.equal(history.invocations.length, 2);
      assert.notEqual(history.invocations[0], history.invocations[1]);
      assert.deepEqual(
        history.tools.map((t) => t.settlement),
        ["succeeded", "indeterminate"],
      );
    });

    it("answers a third session scheduler_stopped with the resolve and resume commands, and runs nothing", async () => {
      const before = portal.requests();
      const { client, end } = await transport.session();
      const answer = (await client.callTool({ name: "probe_login", arguments: {} })) as CallToolResult;
      await end();
      assert.equal(answer.isError, true);
      assert.equal(codeOf(answer), "scheduler_stopped");
      const text = textOf(answer);
      const history = await historyOf(store);
      const indeterminate = history.tools.find((t) => t.settlement === "indeterminate")?.id ?? "?";
      assert.match(text, /tool_action_indeterminate/);
      assert.ok(text.includes(`resolve ${indeterminate} --effect confirmed`), text);
      assert.ok(text.includes(` resume ${PARTICIPANT} --store`), text);
      assert.equal(history.invocations.length, 2);
      assert.deepEqual(portal.requests(), before);
    });

    more();
  });
}

driveThreeSessions("stdio", (store, portal) => ({
  async session() {
    const transport = new ChildStdioTransport(
      process.execPath,
      [...HOST_ARGS(store), "--", process.execPath, SERVER],
      { PATH: process.env.PATH ?? "", DEMO_PORTAL_URL: portal.url },
      tmpdir(),
    );
    const client = new Client({ name: "host-mode-test", version: "1.0.0" });
    await client.connect(transport);
    return {
      client,
      // The client hangs up (stdin closed); the invocation commits before the process exits.
      end: async () => {
        await client.close();
        assert.equal(await transport.exited, 0);
      },
    };
  },
}));

describe("host mode over Streamable HTTP", () => {
  let child: ChildProcess;
  let url = "";
  let storeOf: () => string = () => "";
  driveThreeSessions(
    "HTTP",
    (store, portal) => ({
      async session() {
        storeOf = () => store;
        if (!child) {
          child = spawn(
            process.execPath,
            [...HOST_ARGS(store), "--http", "127.0.0.1:0", "--", process.execPath, SERVER],
            {
              env: { PATH: process.env.PATH ?? "", DEMO_PORTAL_URL: portal.url },
              stdio: ["ignore", "ignore", "pipe"],
            },
          );
          url = await new Promise<string>((resolve, reject) => {
            let stderr = "";
            child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
              stderr += chunk;
              const found = /serving MCP \(Streamable HTTP\) at (\S+)/.exec(stderr)?.[1];
              if (found) resolve(found);
            });
            child.once("exit", () => reject(new Error(stderr)));
          });
        }
        const transport = new StreamableHTTPClientTransport(new URL(url));
        const client = new Client({ name: "host-mode-test", version: "1.0.0" });
        await client.connect(transport);
        return {
          client,
          end: async () => {
            // HTTP DELETE ends the session; its invocation commits before the next session can claim.
            await transport.terminateSession();
            await client.close();
            await waitForClosedInvocations(store);
          },
        };
      },
    }),
    () => {
      it("lets raes resolve and raes resume run while it serves, then answers scheduler_completed", async () => {
        const store = storeOf();
        const { tools } = await historyOf(store);
        const indeterminate = tools.find((t) => t.settlement === "indeterminate")?.id as string;
        const resolved = await run(process.execPath, [
          MAIN,
          "resolve",
          indeterminate,
          "--effect",
          "absent",
          "--store",
          store,
        ]);
        assert.match(resolved.stdout, /absent/);
        await run(process.execPath, [MAIN, "resume", PARTICIPANT, "--store", store]);
        const transport = new StreamableHTTPClientTransport(new URL(url));
        const client = new Client({ name: "host-mode-test", version: "1.0.0" });
        await client.connect(transport);
        const answer = (await client.callTool({ name: "probe_login", arguments: {} })) as CallToolResult;
        await transport.terminateSession();
        await client.close();
        // The example's policy allows two attempts, and both sessions used one.
        assert.equal(codeOf(answer), "scheduler_completed");
        assert.match(textOf(answer), /new --store/);
      });
    },
  );
  after(async () => {
    child?.kill("SIGTERM");
    if (child) assert.equal(await exited(child), 0);
  });
});

/** Waits until the store holds no running invocation (the session's invocation has committed). */
async function waitForClosedInvocations(store: string): Promise<void> {
  for (;;) {
    const opened = await openControlPlaneStore(store, { create: false });
    try {
      if ((await opened.listOpenInvocations()).length === 0) return;
    } finally {
      await opened.close();
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("host mode sessions end on their own", () => {
  let dir: string;
  let portal: PortalService;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "raes-host-idle-"));
    portal = await startPortalService();
  });
  after(async () => {
    await portal.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A stdio host-mode session whose gateway ends it after 1 s without a request; `gone` once it has. */
  async function idleSession(store: string) {
    const [command, ...args] = [
      process.execPath,
      ...HOST_ARGS(store),
      "--idle-timeout",
      "1",
      "--",
      process.execPath,
      SERVER,
    ];
    const transport = new StdioClientTransport({
      command: command as string,
      args,
      env: { PATH: process.env.PATH ?? "", DEMO_PORTAL_URL: portal.url },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const client = new Client({ name: "host-mode-test", version: "1.0.0" });
    const gone = new Promise<void>((resolve) => {
      client.onclose = () => resolve();
    });
    await client.connect(transport);
    return { client, gone, stderr: () => stderr };
  }

  it("starts a stdio session's invocation at its first call, ends it after --idle-timeout without a request, and exits", async () => {
    const store = `sqlite:${join(dir, "idle.db")}`;
    const { client, gone, stderr } = await idleSession(store);
    // Listing claims no invocation; the first call does.
    await client.listTools();
    assert.equal((await historyOf(store).catch(() => ({ invocations: [] }))).invocations.length, 0);
    await client.callTool({ name: "probe_login", arguments: {} });
    // No request after this one and stdin stays open: the gateway ends the session itself, and says why.
    await gone;
    assert.match(
      stderr(),
      /^raes mcp-gateway: session ended: idle for 1 s; the next session is a new invocation$/m,
    );
    const history = await historyOf(store);
    assert.equal(history.invocations.length, 1);
    const opened = await openControlPlaneStore(store, { create: false });
    try {
      const operation = await opened.getOperation(history.invocations[0] as string);
      assert.equal(operation?.state, "succeeded");
    } finally {
      await opened.close();
    }
  });
  it("says on stderr when a session's invocation cannot close, and still exits", async () => {
    const file = join(dir, "unclosed.db");
    const { client, gone, stderr } = await idleSession(`sqlite:${file}`);
    await client.callTool({ name: "probe_login", arguments: {} });
    // The session's close cannot be written: its table is gone from under the running gateway.
    const db = new Database(file);
    db.exec("ALTER TABLE invocations RENAME TO invocations_gone");
    db.close();
    await gone;
    assert.match(stderr(), /the session's invocation did not close: .*invocations/);
  });

  it("spends no attempt on an HTTP session that ended while it waited for its turn", async () => {
    const store = `sqlite:${join(dir, "queued.db")}`;
    const child = spawn(
      process.execPath,
      [...HOST_ARGS(store), "--idle-timeout", "2", "--http", "127.0.0.1:0", "--", process.execPath, SERVER],
      {
        env: { PATH: process.env.PATH ?? "", DEMO_PORTAL_URL: portal.url },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = "";
        child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
          const found = /serving MCP \(Streamable HTTP\) at (\S+)/.exec(stderr)?.[1];
          if (found) resolve(found);
        });
        child.once("exit", () => reject(new Error(stderr)));
      });
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const open = async (): Promise<string> => {
        const response = await fetch(url, {
          method: "POST",
          headers,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-03-26",
              capabilities: {},
              clientInfo: { name: "t", version: "1" },
            },
          }),
        });
        await response.text();
        return response.headers.get("mcp-session-id") as string;
      };
      const post = (session: string, body: unknown, signal?: AbortSignal) =>
        fetch(url, {
          method: "POST",
          headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-03-26" },
          body: JSON.stringify(body),
          ...(signal ? { signal } : {}),
        });
      const call = (id: number) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "probe_login", arguments: {} },
      });
      const first = await open();
      const second = await open();
      await (await post(first, call(2))).text();
      // The second session's call waits for the first session's invocation; its client gives up.
      const gaveUp = new AbortController();
      const waiting = post(second, call(2), gaveUp.signal).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      gaveUp.abort();
      await waiting;
      // The first session stays alive (a request every 300 ms) for well past the second's idle timeout.
      for (let i = 0; i < 15; i += 1) {
        await (await post(first, { jsonrpc: "2.0", id: 3 + i, method: "tools/list" })).text();
        await new Promise((r) => setTimeout(r, 300));
      }
      const expired = await post(second, { jsonrpc: "2.0", id: 20, method: "tools/list" });
      await expired.text();
      assert.equal(expired.status, 404);
      await fetch(url, { method: "DELETE", headers: { "mcp-session-id": first } });
      await waitForClosedInvocations(store);
      // A new session still gets the policy's second attempt: the abandoned one spent nothing.
      const third = await open();
      const answer = (await (await post(third, call(5))).json()) as { result: CallToolResult };
      assert.equal(codeOf(answer.result), undefined, textOf(answer.result));
      await fetch(url, { method: "DELETE", headers: { "mcp-session-id": third } });
      await waitForClosedInvocations(store);
      const history = await historyOf(store);
      assert.equal(history.invocations.length, 2);
      assert.deepEqual(
        history.tools.map((t) => t.settlement),
        ["succeeded", "succeeded"],
      );
    } finally {
      child.kill("SIGTERM");
      await exited(child);
    }
  });
});
