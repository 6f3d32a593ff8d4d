import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  type ControlPlaneStore,
  type InvocationToolActionPort,
  openControlPlaneStore,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
  type RuntimeTimers,
  serveToolActionPort,
} from "../../src/index.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { childNodeArgs } from "../helpers/compiled/index.js";
import { modelStartingAt } from "../helpers/example.js";
import { manifestWithTimeout } from "../helpers/live-model.js";
import { PortedRuntime } from "../helpers/ported-runtime.js";
import { eventually, RAW_UPSTREAM } from "./fixtures/gateway-process.js";
import { RAW_MAP_TEXT } from "./fixtures/raw-map.js";

/**
 * The runtime's timers, except that the offer's timeout (the only timer one step sets) fires when the
 * test says: once the upstream has the call, however long the processes took to start.
 */
class OfferTimeout implements RuntimeTimers {
  #expire: (() => void) | undefined;

  now(): number {
    return performance.now();
  }

  after(_ms: number, fn: () => void): () => void {
    this.#expire = fn;
    return () => {
      this.#expire = undefined;
    };
  }

  expire(): void {
    const expire = this.#expire;
    this.#expire = undefined;
    assert.ok(expire, "the invocation is bounded by its offer's timeout");
    expire();
  }
}

/** What the agent saw. */
interface AgentRun {
  readonly answer: CallToolResult;
  /** The gateway's stderr, once it has exited. */
  readonly stderr: string;
}

/**
 * A harness in this process that serves each invocation's port on a socket and acts as the agent:
 * it starts `raes mcp-gateway --port-socket` in front of the raw upstream, calls `stall` (answered
 * 2 s after the upstream gets it), and lets the offer's timeout expire while the call is at the
 * upstream. Like a harness that ignores its signal, it closes its served port only once its agent is
 * done, after the upstream's late answer reached the gateway.
 */
class SocketHarness extends PortedRuntime {
  run: Promise<AgentRun> | undefined;

  constructor(
    private readonly dir: string,
    private readonly timeout: OfferTimeout,
  ) {
    super();
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.takePort(request);
    assert.ok(port, "the manager attached a port");
    this.run = this.#agent(port);
    await this.run.catch(() => undefined);
    return this.nativeExecution(request, snapshot, episodeId, { status: "succeeded" });
  }

  async #agent(port: InvocationToolActionPort): Promise<AgentRun> {
    const served = await serveToolActionPort(port, { socketPath: join(this.dir, "port.sock") });
    const mapPath = join(this.dir, "map.yaml");
    writeFileSync(mapPath, RAW_MAP_TEXT);
    const callsFile = join(this.dir, "calls.txt");
    const calls = () => (existsSync(callsFile) ? readFileSync(callsFile, "utf8").split("\n") : []);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: cliNodeArgs([
        "mcp-gateway",
        "--port-socket",
        served.socketPath,
        "--map",
        mapPath,
        "--timeout-ms",
        "600000",
        "--",
        process.execPath,
        ...childNodeArgs(RAW_UPSTREAM),
      ]),
      env: {
        PATH: process.env.PATH ?? "",
        RAES_PORT_TOKEN: served.token,
        RAW_UPSTREAM_CALLS_FILE: callsFile,
      },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const client = new Client({ name: "invocation-close-agent", version: "1.0.0" });
    const gone = new Promise<void>((resolve) => {
      client.onclose = () => resolve();
    });
    try {
      await client.connect(transport);
      const answered = client.callTool({ name: "stall", arguments: { answer_after_ms: 2000 } }, undefined, {
        timeout: 600_000,
      });
      assert.ok(await eventually(() => calls().includes("stall"), 30_000), "the upstream has the call");
      this.timeout.expire();
      const answer = (await answered) as CallToolResult;
      // The upstream answers late: the gateway must neither settle nor answer that.
      assert.ok(
        await eventually(() => calls().includes("answered stall"), 30_000),
        "the late answer was sent",
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await client.close();
      await gone;
      return { answer, stderr };
    } finally {
      await client.close().catch(() => undefined);
      await served.close();
    }
  }
}

describe("raes mcp-gateway --port-socket when the invocation closes during a call", () => {
  let dir = "";
  let store: ControlPlaneStore;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "raes-gw-close-"));
    store = await openControlPlaneStore(`sqlite:${join(dir, "control-plane.db")}`);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers the call at the close with the settlement the close recorded, and the upstream's late answer changes nothing", {
    // Without the answer at the close, the agent would get the upstream's late answer, or wait for
    // --timeout-ms (600 s): the test fails, or times out.
    timeout: 120_000,
  }, async () => {
    const timeout = new OfferTimeout();
    const harness = new SocketHarness(dir, timeout);
    const manager = await RuntimeManager.open({
      model: modelStartingAt(10),
      manifest: manifestWithTimeout(30),
      runtime: harness,
      store,
      timers: timeout,
    });
    try {
      const step = await manager.step(1);
      const [invocation] = step.invocations;
      assert.equal(invocation?.timedOut, true);
      const history = await manager.history();
      const { answer, stderr } = await (harness.run as Promise<AgentRun>);
      assert.equal(answer.isError, true);
      assert.equal(
        answer._meta?.["raes/code"],
        "invocation_returned_without_outcome",
        JSON.stringify(answer),
      );
      assert.equal(answer._meta?.["raes/settlement"], "indeterminate");
      const [action, ...others] = await store.listToolActions({});
      assert.equal(others.length, 0);
      assert.equal(action?.id, answer._meta?.["raes/action_instance_id"]);
      assert.equal(action?.settlement, "indeterminate");
      assert.equal(action?.unknownReason, "invocation_returned_without_outcome");
      assert.deepEqual(
        history.filter((e) => e.action_instance_id === action?.id).map((e) => e.event_type),
        ["action_attempted", "state_transition_recorded", "observation_emitted"],
        "one settlement, written by the close",
      );
      assert.deepEqual(await manager.history(), history, "the late answer added nothing to history");
      assert.doesNotMatch(
        stderr,
        /complete of .* refused|reportUnknown of .* refused/,
        "nothing was settled twice",
      );
      // The operator reads why: the upstream had the call (unlike one the close kept from being sent).
      assert.match(
        stderr,
        /is indeterminate: invocation_returned_without_outcome \(the invocation closed before the upstream answered\)/,
      );
    } finally {
      await manager.close();
    }
  });
});
