import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  type ControlPlaneStore,
  openControlPlaneStore,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
  serveToolActionPort,
} from "../../src/index.js";
import { rethrowInvocationErrors } from "../helpers/callback-failures.js";
import { modelStartingAt, ROOT } from "../helpers/example.js";
import { manifestWithTimeout } from "../helpers/live-model.js";
import { PortedRuntime } from "../helpers/ported-runtime.js";

const TSX = import.meta.resolve("tsx");
const FIXTURES = join(ROOT, "test", "mcp", "fixtures");
const node = (file: string) => [process.execPath, "--import", TSX, file];

interface CallReport {
  readonly label: string;
  readonly isError: boolean;
  readonly code: string | null;
  readonly action: string | null;
  readonly text: string;
  readonly rpcError?: string;
}

interface AgentReport {
  readonly tools: readonly string[];
  readonly calls: readonly CallReport[];
}

function run(
  argv: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [command, ...args] = argv;
    const child = spawn(command as string, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      process.stderr.write(chunk);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Serves each invocation's port on a private socket and runs the test agent against `raes mcp-gateway`. */
class GatewayHarness extends PortedRuntime {
  readonly reports: AgentReport[] = [];
  /** The gateway's --log-timings lines. */
  readonly timings: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly script: "full" | "shutdown",
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
    const served = await serveToolActionPort(port, { socketPath: join(this.dir, "port.sock") });
    try {
      const gateway = [
        ...node(join(ROOT, "src", "cli", "main.ts")),
        "mcp-gateway",
        "--log-timings",
        "--port-socket",
        served.socketPath,
        "--map",
        join(FIXTURES, "map.yaml"),
        "--timeout-ms",
        "3000",
        "--",
        ...node(join(FIXTURES, "upstream-server.ts")),
      ];
      const { code, stdout, stderr } = await run(node(join(FIXTURES, "agent.ts")), {
        PATH: process.env.PATH ?? "",
        GATEWAY_COMMAND: JSON.stringify(gateway),
        RAES_PORT_TOKEN: served.token,
        UPSTREAM_COUNT_FILE: join(this.dir, "upstream-calls.txt"),
        AGENT_SCRIPT: this.script,
      });
      assert.equal(code, 0, "the agent exits cleanly");
      this.reports.push(JSON.parse(stdout) as AgentReport);
      this.timings.push(...stderr.split("\n").filter((line) => line.includes("raes mcp-gateway: timing ")));
    } finally {
      await served.close();
    }
    return this.nativeExecution(request, snapshot, episodeId, { status: "partial_success" });
  }
}

/** The store, with each tool-action write it commits listed as `insert|update <phase>`. */
function recordingToolActionWrites(inner: ControlPlaneStore) {
  const writes: string[] = [];
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property !== "insertToolAction" && property !== "updateToolAction") return value.bind(target);
      return async (...args: unknown[]) => {
        const done = await value.apply(target, args);
        writes.push(
          `${property === "insertToolAction" ? "insert" : "update"} ${(args[0] as { phase: string }).phase}`,
        );
        return done;
      };
    },
  });
  return { store, writes };
}

/** One invocation of the example scenario, on a SQLite store, with the agent running `script`. */
async function runOneInvocation(script: "full" | "shutdown") {
  const dir = mkdtempSync(join(tmpdir(), "raes-gw-"));
  const harness = new GatewayHarness(dir, script);
  const { store, writes } = recordingToolActionWrites(
    await openControlPlaneStore(`sqlite:${join(dir, "control-plane.db")}`),
  );
  const manager = await RuntimeManager.open({
    model: modelStartingAt(10),
    // Agent, gateway and upstream start as three processes; on a loaded machine that can take longer
    // than the example offer's 30 s, and the invocation's timeout is not what these tests are about.
    manifest: manifestWithTimeout(600),
    runtime: harness,
    store,
  });
  const step = await manager.step(1);
  rethrowInvocationErrors(step.invocations);
  assert.equal(step.invocations.length, 1);
  const report = harness.reports[0] as AgentReport;
  const calls = new Map(report.calls.map((c) => [c.label, c]));
  const upstreamCalls = readFileSync(join(dir, "upstream-calls.txt"), "utf8").split("\n").filter(Boolean);
  const get = (label: string): CallReport => {
    const found = calls.get(label);
    assert.ok(found, `the agent reported ${label}`);
    return found;
  };
  const dispose = async () => {
    await manager.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { manager, report, get, upstreamCalls, writes, timings: harness.timings, dispose };
}

describe("raes mcp-gateway between a real MCP client and a real upstream MCP server", () => {
  let run: Awaited<ReturnType<typeof runOneInvocation>>;
  let manager: RuntimeManager;
  let report: AgentReport;
  let upstreamCalls: string[];
  let get: (label: string) => CallReport;

  before(async () => {
    run = await runOneInvocation("full");
    ({ manager, report, upstreamCalls, get } = run);
  });

  after(() => run?.dispose());

  it("with --log-timings, logs one stage line per call that reached the upstream, and nothing else of it", () => {
    assert.equal(run?.timings.length, upstreamCalls.filter((n) => n !== "exit").length);
    for (const line of run?.timings ?? [])
      assert.match(
        line,
        /^raes mcp-gateway: timing admit=[\d.]+ dispatch=[\d.]+ upstream=[\d.]+ reply=[\d.]+ settle=[\d.]+ total=[\d.]+$/,
      );
  });

  it("lists only the mapped tools the upstream has", () => {
    assert.deepEqual(report.tools, ["crash", "echo", "fail", "stall", "write_db"]);
  });

  it("forwards each admitted call to the upstream exactly once, and never a refused one", () => {
    const tally = (name: string) => upstreamCalls.filter((n) => n === name).length;
    assert.deepEqual(
      { echo: tally("echo"), fail: tally("fail"), stall: tally("stall"), crash: tally("crash") },
      { echo: 3, fail: 1, stall: 1, crash: 1 },
    );
    assert.equal(tally("write_db"), 0);
    assert.equal(tally("hidden_tool"), 0);
    assert.deepEqual(upstreamCalls.slice(-2), ["crash", "exit"]);
    assert.equal(upstreamCalls.length, 7);
  });

  it("returns upstream results unchanged and completes them (isError → failed)", () => {
    assert.deepEqual(get("echo"), {
      label: "echo",
      isError: false,
      code: null,
      action: null,
      text: "echo #1: one",
    });
    assert.deepEqual(get("fail"), {
      label: "fail",
      isError: true,
      code: null,
      action: null,
      text: "the tool failed",
    });
  });

  it("refuses through the port with the refusal code, and hides and refuses unmapped tools", () => {
    assert.equal(get("outside").code, "target_outside_binding");
    assert.match(get("outside").text, /target_outside_binding/);
    assert.equal(get("unmapped").code, "tool_not_mapped");
    assert.match(get("unmapped").text, /tool_not_mapped/);
    assert.equal(get("ghost").code, "tool_not_available");
  });

  it("answers a retried request id from the original decision without a second upstream call", () => {
    assert.equal(get("retry-seq-1").text, "echo #2: two");
    assert.deepEqual({ ...get("retry-seq-2"), label: "" }, { ...get("retry-seq-1"), label: "" });
    assert.equal(get("retry-par-1").text, "echo #3: three");
    assert.deepEqual({ ...get("retry-par-2"), label: "" }, { ...get("retry-par-1"), label: "" });
    assert.equal(get("reused-id").code, "request_id_reused");
  });

  it("reports an upstream timeout and an upstream crash as indeterminate, then admits nothing more", () => {
    assert.equal(get("stall").code, "upstream_timeout");
    assert.equal(get("crash").code, "upstream_lost");
    assert.equal(get("after-crash").code, "upstream_unavailable");
  });

  it("admits and dispatches each call in one durable write, then settles it in one more", () => {
    // Six admitted calls: each claim is written once, already dispatched; no separate dispatch write.
    // (The close settles nothing more: every call was settled through the port.)
    assert.deepEqual(
      run.writes.filter((w) => w.startsWith("insert")),
      Array(6).fill("insert dispatched"),
    );
    assert.deepEqual(
      run.writes.filter((w) => w.startsWith("update")),
      Array(6).fill("update settled"),
    );
  });

  it("records one tool action per admitted call, with matching operations and history", async () => {
    const actions = await manager.store.listToolActions({});
    const bySettlement = (s: string) => actions.filter((a) => a.settlement === s).length;
    assert.equal(actions.length, 6);
    assert.deepEqual(
      {
        succeeded: bySettlement("succeeded"),
        failed: bySettlement("failed"),
        indeterminate: bySettlement("indeterminate"),
      },
      { succeeded: 3, failed: 1, indeterminate: 2 },
    );
    for (const [label, state] of [
      ["stall", "indeterminate"],
      ["crash", "indeterminate"],
    ] as const) {
      const operation = await manager.getOperation(get(label).action as string);
      assert.equal(operation?.state, state);
      assert.equal(operation?.kind, "tool_action");
    }
    // Each record keeps the MCP tool name the gateway admitted, and the reportUnknown reason.
    assert.deepEqual(
      actions.map((a) => [a.request.toolName, a.unknownReason ?? null]),
      [
        ["echo", null],
        ["fail", null],
        ["echo", null],
        ["echo", null],
        ["stall", "upstream_timeout"],
        ["crash", "upstream_lost"],
      ],
    );
    for (const action of actions) {
      const operation = await manager.getOperation(action.id);
      assert.equal(operation?.parentId, action.invocationId);
      assert.equal(operation?.settlement, action.settlement);
    }
    const events = await manager.history();
    const toolEvents = events.filter((e) => e.invocation_tool_context !== undefined);
    assert.equal(toolEvents.length, 6 * 3);
    assert.equal(events.length, 6 * 3 + 3);
    const attempted = toolEvents.filter((e) => e.event_type === "action_attempted");
    assert.deepEqual(
      attempted.map((e) => e.invocation_tool_context?.settlement),
      ["succeeded", "failed", "succeeded", "succeeded", "indeterminate", "indeterminate"],
    );
    assert.deepEqual(
      attempted.map((e) => e.invocation_tool_context?.admission_ordinal),
      [1, 2, 3, 4, 5, 6],
    );
    const scheduler = manager.schedulers()[0];
    assert.equal(scheduler?.lifecycle, "stopped");
    assert.equal(scheduler?.stopReason, "tool_action_indeterminate");
  });
});

describe("raes mcp-gateway shutdown", () => {
  it("on SIGTERM reports the call in flight unknown, answers it, and closes the upstream", async () => {
    const run = await runOneInvocation("shutdown");
    try {
      assert.equal(run.get("echo").text, "echo #1: one");
      assert.equal(run.get("stall").code, "gateway_shutdown");
      assert.deepEqual(run.upstreamCalls, ["echo", "stall", "exit"]);
      const actions = await run.manager.store.listToolActions({});
      assert.deepEqual(
        actions.map((a) => [a.settlement, a.unknownReason ?? null]),
        [
          ["succeeded", null],
          ["indeterminate", "gateway_shutdown"],
        ],
      );
      assert.equal(
        (await run.manager.getOperation(run.get("stall").action as string))?.state,
        "indeterminate",
      );
    } finally {
      await run.dispose();
    }
  });
});
