import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { AgentCommandRuntime, groupMembers } from "../../src/agent/index.js";
import { RuntimeManager } from "../../src/index.js";
import { raes } from "../cli/cli.js";
import { agentRunArgs, LIVE, nodeTs, upstreamCalls } from "../fixtures/live/agent-run.js";
import { liveScenario } from "../fixtures/live/scenario.js";
import { EXAMPLE, modelStartingAt } from "../helpers/example.js";
import { manifestWithTimeout } from "../helpers/live-model.js";

const INVOCATION = `${EXAMPLE.policy}:${EXAMPLE.participant}:0`;

function logOf(logDir: string): string {
  const [file] = readdirSync(logDir);
  return file ? readFileSync(join(logDir, file), "utf8") : "";
}

describe("raes run --agent-command", () => {
  let dir = "";
  let manifestPath = "";
  let scenarioPath = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-agent-"));
    scenarioPath = liveScenario(dir);
    // Agent, gateway and upstream are three process starts per invocation; under load that can
    // exceed the example offer's 30 s, and the timeout has its own test below.
    manifestPath = join(dir, "manifest.json");
    writeFileSync(manifestPath, JSON.stringify(manifestWithTimeout(600)));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const run = (name: string, agentCommand: string, env: Record<string, string> = {}) => {
    const countFile = join(dir, `${name}.count`);
    const logs = join(dir, `${name}-logs`);
    const store = join(dir, `${name}.db`);
    const result = raes(
      [
        ...agentRunArgs({
          scenario: scenarioPath,
          manifest: manifestPath,
          agent: agentCommand,
          countFile,
          map: join(LIVE, "map.yaml"),
          logs,
          store: `sqlite:${store}`,
        }),
        "--json",
      ],
      { env },
    );
    return result.then((r) => ({ ...r, countFile, logs, store }));
  };

  it("a scripted SDK agent: admitted calls reach the upstream exactly once, refused ones never; exit 0 → succeeded; its output goes to a per-invocation log, not the store", async () => {
    const r = await run("sdk", nodeTs(join(LIVE, "sdk-agent.ts")), {
      AGENT_SCRIPT: "echo:one,write_db,echo:two",
    });
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.equal(summary.invocations, 1);
    assert.deepEqual(summary.tool_actions, { succeeded: 2 });
    assert.deepEqual(summary.refusals, { target_outside_binding: 1 });
    assert.deepEqual(upstreamCalls(r.countFile), ["echo", "echo"]);

    const log = logOf(r.logs);
    const report = JSON.parse(/^REPORT (.*)$/m.exec(log)?.[1] ?? "null");
    assert.deepEqual(report.env, {
      invocation: INVOCATION,
      participant: EXAMPLE.participant,
      episode: `${EXAMPLE.participant}-autonomous-0`,
      observationPoint: "time.clock.scenario-clock@segment=0,tick=10",
    });
    assert.deepEqual(report.servers, ["portal"]);
    assert.deepEqual(report.tools, ["echo", "slow_echo", "write_db"]);
    assert.deepEqual(
      report.calls.map((c: { tool: string; code: unknown; text: string }) => [c.tool, c.code, c.text]),
      [
        ["echo", null, "echo #1: one"],
        ["write_db", "target_outside_binding", report.calls[1].text],
        ["echo", null, "echo #2: two"],
      ],
    );
    const history = await raes(["history", "--store", `sqlite:${r.store}`, "--json"]);
    const outer = JSON.parse(history.stdout).events.find(
      (e: { event_type: string; action_instance_id: string }) =>
        e.event_type === "observation_emitted" && e.action_instance_id === INVOCATION,
    );
    assert.equal(outer?.action_result?.status, "succeeded");
    assert.ok(!readFileSync(r.store).includes("REPORT"), "the agent's output is not in the store");
    // The refusal is counted on the invocation's operation; each child keeps its MCP tool name.
    const operation = await raes(["operation", INVOCATION, "--store", `sqlite:${r.store}`, "--json"]);
    const wire = JSON.parse(operation.stdout);
    assert.deepEqual(wire.refusals, { target_outside_binding: 1 });
    assert.deepEqual(wire.children, [`${INVOCATION}:tool=1`, `${INVOCATION}:tool=2`]);
    const child = await raes(["operation", `${INVOCATION}:tool=2`, "--store", `sqlite:${r.store}`, "--json"]);
    assert.deepEqual(
      (({ tool_name, unknown_reason, parent_id }) => ({ tool_name, unknown_reason, parent_id }))(
        JSON.parse(child.stdout),
      ),
      { tool_name: "echo", unknown_reason: null, parent_id: INVOCATION },
    );
    const people = await raes(["operation", INVOCATION, "--store", `sqlite:${r.store}`]);
    assert.match(people.stdout, /^refusals +\{"target_outside_binding":1\}$/m);
    assert.match(people.stdout, /^children \(2\):$/m);
    assert.match(people.stdout, /:tool=2 {2}succeeded {2}tool echo$/m);
    const listed = await raes(["operations", "--store", `sqlite:${r.store}`]);
    assert.match(listed.stdout, /refused target_outside_binding=1$/m);
    assert.match(listed.stdout, /:tool=1 +tool=echo$/m);
  });

  it("a non-zero exit maps to failed (its failure_policy stop exits 1)", async () => {
    const r = await run("exit3", nodeTs(join(LIVE, "sdk-agent.ts")), { AGENT_SCRIPT: "echo:x,exit:3" });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /failure_policy/);
    const operation = await raes(["operation", INVOCATION, "--store", `sqlite:${r.store}`, "--json"]);
    assert.equal(JSON.parse(operation.stdout).state, "failed");
    assert.deepEqual(upstreamCalls(r.countFile), ["echo"]);
  });

  it("an agent in bash speaking JSON-RPC to the gateway: the echo reaches the upstream once, the refused write never", async () => {
    const r = await run("bash", `bash ${join(LIVE, "shell-agent.sh")}`);
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.deepEqual(summary.tool_actions, { succeeded: 1 });
    assert.deepEqual(summary.refusals, { target_outside_binding: 1 });
    assert.deepEqual(upstreamCalls(r.countFile), ["echo"]);
    const log = logOf(r.logs);
    assert.match(log, /^ECHO .*echo #1: from bash/m);
    assert.match(log, new RegExp(`^AGENT invocation=${INVOCATION.replace(/[.:]/g, "\\$&")} `, "m"));
    const operation = await raes(["operation", INVOCATION, "--store", `sqlite:${r.store}`, "--json"]);
    assert.equal(JSON.parse(operation.stdout).state, "succeeded", "the bash agent exited 0");
  });

  /** `raes run --agent-command` with `map`; what it printed and what it left behind. */
  const runWithMap = async (name: string, map: string) => {
    const countFile = join(dir, `${name}.count`);
    const logs = join(dir, `${name}-logs`);
    const store = join(dir, `${name}.db`);
    const r = await raes(
      agentRunArgs({
        scenario: scenarioPath,
        manifest: manifestPath,
        agent: nodeTs(join(LIVE, "sdk-agent.ts")),
        countFile,
        map,
        logs,
        store: `sqlite:${store}`,
      }),
    );
    return { ...r, written: [countFile, logs, store].filter((f) => existsSync(f)) };
  };

  it("a map tool the participant has not bound is refused up front as host mode refuses it (exit 2), no attempt spent", async () => {
    const unbound = join(dir, "unbound.yaml");
    // The first tool (echo) only: a string pattern replaces its first occurrence.
    writeFileSync(
      unbound,
      readFileSync(join(LIVE, "map.yaml"), "utf8").replace(
        "participant.action-contract.probe-customer-portal-login",
        "participant.action-contract.not-bound",
      ),
    );
    const r = await runWithMap("unbound", unbound);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^raes: cli\.usage: map tool echo: participant\.behavior\.participant-agent has no binding of tool affordance \S+ to action contract participant\.action-contract\.not-bound in the scenario, so every call would be refused affordance_unbound$/m,
    );
    assert.doesNotMatch(r.stderr, /map tool (slow_echo|write_db)/, "only the unbound tool is named");
    assert.equal(r.stdout, "", "no invocation ran");
    assert.deepEqual(r.written, [], "no store, agent log or upstream call");
  });

  it("a missing or malformed map is the gateway's mcp-map diagnostic and exit 2, not an uncoded error", async () => {
    const malformed = join(dir, "malformed.yaml");
    writeFileSync(malformed, "tools: [\n");
    for (const [name, map, code] of [
      ["missing", join(dir, "no-such-map.yaml"), "mcp-map.unreadable"],
      ["malformed", malformed, "mcp-map.yaml-invalid"],
    ] as const) {
      const r = await runWithMap(name, map);
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^${map.replaceAll(".", "\\.")}:\\d+:\\d+: ${code}`, "m"), name);
      assert.match(r.stderr, /^raes: cli\.usage: --map .* has errors; nothing ran$/m, name);
      assert.doesNotMatch(r.stderr, /uncoded/, name);
      assert.deepEqual(r.written, [], `${name}: nothing written`);
    }
  });

  it("usage: exactly one of --runtime and --agent-command; an agent command needs --map and an upstream", async () => {
    const base = ["run", scenarioPath, "--manifest", manifestPath];
    for (const args of [
      base,
      [...base, "--runtime", "x.ts", "--agent-command", "true"],
      [...base, "--agent-command", "true", "--mcp-upstream", "a=true"],
      [...base, "--agent-command", "true", "--map", "m.yaml"],
      [...base, "--agent-command", "true", "--map", "m.yaml", "--mcp-upstream", "=true"],
    ]) {
      const r = await raes(args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    }
  });
});

describe("an agent command killed by the timeout", () => {
  it("ends the whole process group (agent, gateway, upstream): nothing is left behind", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-agent-timeout-"));
    try {
      const countFile = join(dir, "count");
      const runtime = new AgentCommandRuntime({
        agentCommand: `bash ${join(LIVE, "shell-agent.sh")}`,
        upstreams: [
          {
            name: "portal",
            command: `COUNT_FILE=${countFile} ${nodeTs(join(LIVE, "counting-upstream.ts"))}`,
          },
        ],
        mapPath: join(LIVE, "map.yaml"),
        logDir: join(dir, "logs"),
      });
      let late: () => void = () => undefined;
      const discarded = new Promise<void>((resolve) => {
        late = resolve;
      });
      const previous = process.env.AGENT_MODE;
      process.env.AGENT_MODE = "hang";
      // Long enough for three process starts on a loaded machine, so the group is full when it ends.
      const manager = await RuntimeManager.open({
        model: modelStartingAt(10),
        manifest: manifestWithTimeout(20),
        runtime,
        observer: { lateResultDiscarded: () => late() },
      });
      try {
        const step = await manager.step(1);
        assert.equal(step.invocations[0]?.timedOut, true);
        assert.equal((await manager.getOperation(INVOCATION))?.state, "failed");
        await discarded;
      } finally {
        if (previous === undefined) delete process.env.AGENT_MODE;
        else process.env.AGENT_MODE = previous;
        await manager.close();
      }
      const [agent] = runtime.runs;
      assert.ok(agent?.pid, "the agent started");
      assert.equal(agent.stopped, true);
      assert.match(readFileSync(agent.logPath, "utf8"), /^HANGING$/m, "it hung after its calls");
      assert.deepEqual(upstreamCalls(countFile), ["echo"], "the upstream ran in the group");
      assert.deepEqual(groupMembers(agent.pid), [], "no process of the agent's group is left");
      const upstreamPid = Number(readFileSync(countFile, "utf8").split(" ")[1]);
      assert.ok(!groupMembers(upstreamPid).includes(upstreamPid));
      assert.equal(isAlive(upstreamPid), false, "the upstream is gone");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** True while the process exists and is not a zombie. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
