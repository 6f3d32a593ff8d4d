import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatDiagnostic, hasErrors, loadScenario } from "../../src/sdl/index.js";
import { EXAMPLE_PATH, EXAMPLE_TEXT } from "../fixtures/scenarios/example.js";

const UNINTERPRETED_IN_EXAMPLE = [
  "assertions",
  "conditions",
  "evidence_requirements",
  "infrastructure",
  "objectives",
  "outcome_interpretation_rules",
  "propositions",
  "workflows",
];

describe("loadScenario on the example", () => {
  it("loads the example file unchanged with zero errors", () => {
    const { scenario, diagnostics } = loadScenario(EXAMPLE_PATH);
    assert.equal(hasErrors(diagnostics), false, diagnostics.map((d) => formatDiagnostic(d)).join("\n"));
    assert.equal(scenario?.name, "enterprise-participant-evidence-loop");
    assert.equal(scenario?.version, "1.0");
  });

  it("warns exactly once per uninterpreted RAES section, at the section key, with the file name", () => {
    const { diagnostics } = loadScenario(EXAMPLE_PATH);
    const warnings = diagnostics.filter((d) => d.severity === "warning");
    assert.deepEqual(warnings.map((w) => w.path.slice(1)).sort(), UNINTERPRETED_IN_EXAMPLE);
    for (const warning of warnings) {
      assert.equal(warning.code, "sdl.section.uninterpreted");
      assert.equal(warning.file, EXAMPLE_PATH);
      assert.equal(warning.column, 1);
      const line = EXAMPLE_TEXT.split("\n")[warning.line - 1];
      assert.equal(line, `${warning.path.slice(1)}:${line?.endsWith("{}") ? " {}" : ""}`);
    }
  });

  it("gives the same result for the text and for the path, except the file name", () => {
    const fromText = loadScenario(EXAMPLE_TEXT);
    const fromPath = loadScenario(EXAMPLE_PATH);
    assert.deepEqual(fromText.scenario, fromPath.scenario);
    assert.deepEqual(
      fromText.diagnostics,
      fromPath.diagnostics.map(({ file: _file, ...rest }) => rest),
    );
  });

  it("keeps uninterpreted sections as authored", () => {
    const { scenario } = loadScenario(EXAMPLE_PATH);
    const infrastructure = scenario?.infrastructure as Record<string, { count: number }>;
    assert.equal(infrastructure["dmz-net"]?.count, 1);
  });

  it("decodes the interpreted sections with defaults filled in", () => {
    const { scenario } = loadScenario(EXAMPLE_PATH);
    const policy = scenario?.behavior_specifications["participant-behavior"]?.autonomous_execution;
    assert.equal(policy?.profile, "participant-autonomous-execution/v1");
    assert.equal(policy?.selection_strategy, "ordered_cycle");
    assert.equal(policy?.max_action_attempts, 2);
    const portal = scenario?.nodes["customer-portal"];
    assert.deepEqual(portal?.services, [{ port: 8080, protocol: "tcp", name: "http", description: "" }]);
    assert.equal(scenario?.entities["enterprise-participant"]?.role, "green");
  });

  it("anchors a diagnostic at the line and column of the offending value", () => {
    const text = EXAMPLE_TEXT.replace("      max_action_attempts: 2\n", "      max_action_attempts: 0\n");
    const { diagnostics } = loadScenario(text, { file: "edited.yaml" });
    const error = diagnostics.find((d) => d.severity === "error" && d.path.endsWith("/max_action_attempts"));
    const lineIndex = text.split("\n").indexOf("      max_action_attempts: 0");
    assert.equal(error?.line, lineIndex + 1);
    assert.equal(error?.column, "      max_action_attempts: ".length + 1);
    assert.equal(
      formatDiagnostic(error ?? assert.fail("no error")).startsWith(`edited.yaml:${lineIndex + 1}:`),
      true,
    );
  });

  it("collects every error of a stage rather than stopping at the first", () => {
    const structural = EXAMPLE_TEXT.replace(
      "      max_action_attempts: 2\n",
      "      max_action_attempts: 0\n",
    ).replace("      clock_ref: scenario-clock\n", "      clock_ref: 7\n");
    const paths = loadScenario(structural)
      .diagnostics.filter((d) => d.severity === "error")
      .map((d) => `${d.code} ${d.path}`);
    const policy = "/behavior_specifications/participant-behavior/autonomous_execution";
    assert.deepEqual(paths.sort(), [
      `sdl.model.invalid ${policy}`,
      `sdl.model.invalid ${policy}/clock_ref`,
      `sdl.model.invalid ${policy}/max_action_attempts`,
    ]);
    const semantic = EXAMPLE_TEXT.replace(
      "    time_domain_ref: scenario\n",
      "    time_domain_ref: mars\n",
    ).replace(
      "      progression_policy_ref: scenario-progression\n",
      "      progression_policy_ref: missing\n",
    );
    const codes = loadScenario(semantic)
      .diagnostics.filter((d) => d.severity === "error")
      .map((d) => d.code);
    assert.deepEqual(codes.sort(), [
      "participant.autonomous-progression-unbound",
      "time.clock-time-domain-unbound",
    ]);
  });

  it("reports no semantic error after a structural one (RAES stops at the model stage)", () => {
    const text = EXAMPLE_TEXT.replace(
      "  probe-customer-portal-login:\n    semantic_version: 1.0.0\n",
      "  probe-customer-portal-login:\n",
    );
    const codes = loadScenario(text)
      .diagnostics.filter((d) => d.severity === "error")
      .map((d) => d.code);
    assert.deepEqual(codes, ["sdl.model.invalid"]);
  });
});
