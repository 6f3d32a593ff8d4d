import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { RuntimeModel } from "../../src/compiler/index.js";
import { hostMapProblems, hostParticipant } from "../../src/host/index.js";
import { parseToolMap } from "../../src/mcp/index.js";
import { raes } from "../cli/cli.js";
import { EXAMPLE_HOST_INPUTS, ROOT } from "../helpers/example.js";

/** The two parts of a model that choosing the participant reads. */
function model(policies: Record<string, readonly string[]>, bound: readonly string[]): RuntimeModel {
  return {
    autonomousPolicies: Object.fromEntries(
      Object.entries(policies).map(([address, participants]) => [
        address,
        { participantAddresses: participants },
      ]),
    ),
    affordanceBindings: bound.map((participantAddress) => ({ participantAddress })),
  } as unknown as RuntimeModel;
}

describe("the participant host mode runs", () => {
  it("is the only autonomous participant with a tool affordance binding", () => {
    const m = model({ "policy.a": ["p.agent", "p.quiet"] }, ["p.agent"]);
    assert.deepEqual(hostParticipant(m, undefined), { participant: "p.agent" });
  });

  it("must be chosen when several have bindings, and the problem lists them", () => {
    const m = model({ "policy.a": ["p.b"], "policy.b": ["p.a"] }, ["p.a", "p.b"]);
    const chosen = hostParticipant(m, undefined);
    assert.ok("problem" in chosen);
    assert.match(chosen.problem, /choose one with --participant: p\.a, p\.b$/);
    assert.deepEqual(hostParticipant(m, "p.b"), { participant: "p.b" });
  });

  it("refuses a name that is no autonomous participant, and a scenario with none to run", () => {
    const m = model({ "policy.a": ["p.agent"] }, ["p.agent"]);
    const unknown = hostParticipant(m, "p.other");
    assert.ok("problem" in unknown);
    assert.match(
      unknown.problem,
      /p\.other is not an autonomous participant of the scenario; it has: p\.agent/,
    );
    const none = hostParticipant(model({ "policy.a": ["p.agent"] }, []), undefined);
    assert.ok("problem" in none);
    assert.match(none.problem, /no autonomous participant with a tool affordance binding/);
  });
});

describe("a participant host mode cannot run", () => {
  it("is a coded usage error on the command line: raes: cli.usage: …, exit 2", async () => {
    const run = await raes([
      "mcp-gateway",
      ...EXAMPLE_HOST_INPUTS,
      "--map",
      join(ROOT, "examples", "demo", "mcp-map.yaml"),
      "--participant",
      "participant.behavior.nobody",
      "--",
      process.execPath,
      join(ROOT, "dist", "demo", "server.js"),
    ]);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /^raes: cli\.usage: --participant participant\.behavior\.nobody is not an autonomous participant of the scenario; it has: participant\.behavior\.participant-agent$/m,
    );
  });
});

describe("a host-mode map checked against the scenario", () => {
  const bindings = {
    affordanceBindings: [
      {
        participantAddress: "p.agent",
        toolAffordanceAddress: "aff.portal",
        actionContractAddress: "contract.probe",
      },
      {
        participantAddress: "p.other",
        toolAffordanceAddress: "aff.db",
        actionContractAddress: "contract.query",
      },
    ],
  } as unknown as RuntimeModel;
  const map = (affordance: string, contract: string) => {
    const parsed = parseToolMap(
      `tools:\n  probe:\n    tool_affordance: participant.behavior-specification.s.tool-affordance.${affordance}\n    action_contract: participant.action-contract.${contract}\n    observation_boundary: participant.observation-boundary.view\n    targets: [provision.node.n.service.s]\n`,
    );
    assert.ok(parsed.ok);
    return parsed.map;
  };
  const model = (affordance: string, contract: string) =>
    ({
      affordanceBindings: [
        ...bindings.affordanceBindings,
        {
          participantAddress: "p.agent",
          toolAffordanceAddress: `participant.behavior-specification.s.tool-affordance.${affordance}`,
          actionContractAddress: `participant.action-contract.${contract}`,
        },
      ],
    }) as unknown as RuntimeModel;

  it("accepts an entry whose affordance and contract are bound to the participant", () => {
    assert.deepEqual(hostMapProblems(model("portal", "probe"), "p.agent", map("portal", "probe")), []);
  });

  it("names an entry bound to another participant, or to no contract, or not at all", () => {
    for (const [affordance, contract] of [
      ["portal", "other"],
      ["typo", "probe"],
    ] as const) {
      const problems = hostMapProblems(model("portal", "probe"), "p.agent", map(affordance, contract));
      assert.equal(problems.length, 1);
      assert.match(
        problems[0] ?? "",
        /^map tool probe: p\.agent has no binding of tool affordance .* affordance_unbound$/,
      );
    }
    assert.equal(hostMapProblems(model("portal", "probe"), "p.other", map("portal", "probe")).length, 1);
  });

  it("refuses to start on such a map: cli.usage, exit 2, and no store is made", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-host-map-"));
    const mapFile = join(dir, "map.yaml");
    writeFileSync(
      mapFile,
      readFileSync(join(ROOT, "examples", "demo", "mcp-map.yaml"), "utf8").replaceAll(
        "tool-affordance.portal-client",
        "tool-affordance.portal-clinet",
      ),
    );
    const store = join(dir, "control-plane.db");
    const run = await raes([
      "mcp-gateway",
      ...EXAMPLE_HOST_INPUTS,
      "--map",
      mapFile,
      "--store",
      `sqlite:${store}`,
      "--",
      process.execPath,
      join(ROOT, "dist", "demo", "server.js"),
    ]);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /^raes: cli\.usage: map tool probe_login: participant\.behavior\.participant-agent has no binding of tool affordance participant\.behavior-specification\.participant-behavior\.tool-affordance\.portal-clinet/m,
    );
    assert.match(run.stderr, /^raes: cli\.usage: map tool query_customer_db: /m);
    assert.equal(existsSync(store), false);
  });
});
