import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parse, stringify } from "yaml";
import { canonicalJson, compileScenario, type RuntimeModel } from "../../src/compiler/index.js";
import { formatDiagnostic, hasErrors, loadScenario } from "../../src/sdl/index.js";
import { EXAMPLE_TEXT } from "../fixtures/scenarios/example.js";

// biome-ignore lint/suspicious/noExplicitAny: the tests edit parsed YAML documents freely.
type Doc = Record<string, any>;
const SPEC = "participant-behavior";
const identifier = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);

interface Variant {
  readonly agents: readonly string[];
  readonly affordances: readonly { id: string; tool: boolean }[];
  readonly manualSpec: boolean;
}

const variantArb: fc.Arbitrary<Variant> = fc.record({
  agents: fc.uniqueArray(
    identifier.map((name) => `agent-${name}`),
    { maxLength: 4 },
  ),
  affordances: fc.uniqueArray(
    fc.record({ id: identifier.map((name) => `tool-${name}`), tool: fc.boolean() }),
    { maxLength: 4, selector: (entry) => entry.id },
  ),
  manualSpec: fc.boolean(),
});

function classify(doc: Doc, spec: string, id: string): void {
  const ref = `behavior_specifications.${spec}.tool_affordances.${id}`;
  const boundary = doc.observation_boundaries["participant-view"];
  boundary.observable_refs.push(ref);
  boundary.view_rules.push({
    information_ref: ref,
    boundary_class: "observable_resource",
    disposition: "observable",
    visibility_basis: "generated affordance",
  });
}

/** Builds a valid variant of the example: extra green agents, extra affordances, maybe a spec without a policy. */
function variantDoc(variant: Variant): Doc {
  const doc: Doc = parse(EXAMPLE_TEXT);
  for (const agent of variant.agents) {
    doc.agents[agent] = {
      entity: "enterprise-participant",
      actions: ["probe-customer-portal-login"],
      observation_boundaries: ["participant-view"],
    };
  }
  const affordances = doc.behavior_specifications[SPEC].tool_affordances;
  const contents = Object.keys(doc.content);
  variant.affordances.forEach(({ id, tool }, index) => {
    affordances[id] = {
      ...(tool ? { tool_ref: `content.${contents[index % contents.length]}` } : {}),
      action_contract_refs: ["probe-customer-portal-login"],
      observation_boundary_refs: ["participant-view"],
    };
    classify(doc, SPEC, id);
  });
  const distinct = new Set(
    variant.affordances.map(({ tool }, index) => (tool ? index % contents.length : -1)),
  );
  if (distinct.size < variant.affordances.length || distinct.has(-1)) {
    // Affordances with equal tool, actions and boundaries are a duplicate relation; give each its own tool.
    variant.affordances.forEach(({ id }, index) => {
      affordances[id].tool_ref = `content.${contents[index % contents.length]}`;
    });
  }
  if (variant.manualSpec) {
    doc.behavior_specifications.manual = {
      semantic_version: "1.0.0",
      participant_role_refs: ["green"],
      action_contract_refs: ["probe-customer-portal-login"],
      observation_boundary_refs: ["participant-view"],
      tool_affordances: {
        "manual-client": {
          action_contract_refs: ["probe-customer-portal-login"],
          observation_boundary_refs: ["participant-view"],
        },
      },
    };
    classify(doc, "manual", "manual-client");
  }
  return doc;
}

function shuffledKeys(doc: Doc, seed: number): Doc {
  const out: Doc = {};
  const keys = Object.keys(doc);
  const order = keys
    .map((key, index) => ({ key, rank: (index * 7919 + seed) % 104729 }))
    .sort((a, b) => a.rank - b.rank);
  for (const { key } of order) out[key] = doc[key];
  for (const section of ["agents", "content", "nodes", "behavior_specifications"]) {
    const entries = Object.entries(doc[section] as Doc).reverse();
    out[section] = Object.fromEntries(entries);
  }
  return out;
}

function compileDoc(doc: Doc): RuntimeModel {
  const { scenario, diagnostics } = loadScenario(stringify(doc), { source: "text" });
  assert.equal(hasErrors(diagnostics), false, diagnostics.map((d) => formatDiagnostic(d)).join("\n"));
  assert.ok(scenario);
  return compileScenario(scenario);
}

/**
 * docs/design.md §2's address kinds, written out independently of the compiler: a fixed word or `*`
 * (one segment) per position. The compiler's own check (`isAddress`) is what built them, so the test
 * uses this instead.
 */
const ADDRESS_KINDS: readonly (readonly string[])[] = [
  ["participant", "behavior", "*"],
  ["participant", "action-contract", "*"],
  ["participant", "observation-boundary", "*"],
  ["participant", "behavior-specification", "*"],
  ["participant", "behavior-specification", "*", "tool-affordance", "*"],
  ["participant", "autonomous-execution", "*"],
  ["participant", "autonomous-execution", "*", "binding", "*"],
  ["provision", "node", "*"],
  ["provision", "node", "*", "service", "*"],
  ["provision", "content", "*"],
  ["provision", "content", "*", "items", "*"],
  ["provision", "network", "*"],
  ["provision", "account", "*"],
  ["template", "condition", "*"],
  ["template", "feature", "*"],
  ["template", "vulnerability", "*"],
  ["evaluation", "assertion", "*"],
  ["participant", "behavior-specification", "*", "controller-state", "*"],
  ["participant", "behavior-specification", "*", "control-transition", "*"],
  ["time", "clock", "*"],
  ["time", "policy", "*"],
  ["time", "constraint", "*"],
  ["time", "domain", "*"],
  ["evaluation", "objective", "*"],
  ["participant", "outcome-interpretation-rule", "*"],
  ["participant", "behavior-specification", "*", "inject-delivery", "*"],
  ["sdl", "*", "*"],
  ["sdl", "workflow-step", "*", "*"],
];

const FIRST = "abcdefghijklmnopqrstuvwxyz0123456789";
const REST = `${FIRST}_-`;

/** One segment, checked character by character: `[a-z0-9][a-z0-9_-]{0,63}`. */
function isSegment(segment: string): boolean {
  if (segment.length < 1 || segment.length > 64) return false;
  return [...segment].every((char, i) => (i === 0 ? FIRST : REST).includes(char));
}

/** The kind an address has, as its pattern, or undefined when it has none. */
function addressKind(address: string): string | undefined {
  const segments = address.split(".");
  if (!segments.every(isSegment)) return undefined;
  const kind = ADDRESS_KINDS.find(
    (k) => k.length === segments.length && k.every((word, i) => word === "*" || word === segments[i]),
  );
  return kind?.join(".");
}

const ADDRESS_FIELD = /(^address$|Address$|Addresses$)/;

/**
 * Every address the model holds: record keys and the values of address fields (`""`, RAES's "none",
 * excepted). A view relation's keys are authored information refs, not addresses.
 */
function addressesIn(value: unknown, out: string[] = [], field = ""): string[] {
  if (typeof value === "string") {
    if (ADDRESS_FIELD.test(field) && value !== "") out.push(value);
  } else if (Array.isArray(value)) {
    for (const entry of value) addressesIn(entry, out, field);
  } else if (value !== null && typeof value === "object") {
    for (const [key, entry] of Object.entries(value)) {
      if (key.includes(".") && field !== "viewRelation") out.push(key);
      addressesIn(entry, out, key);
    }
  }
  return out;
}

describe("compiler properties", () => {
  it("compiles valid variants deterministically, independent of mapping key order", () => {
    fc.assert(
      fc.property(variantArb, fc.nat(), (variant, seed) => {
        const doc = variantDoc(variant);
        const first = canonicalJson(compileDoc(doc));
        assert.equal(canonicalJson(compileDoc(doc)), first);
        assert.equal(canonicalJson(compileDoc(shuffledKeys(doc, seed))), first);
      }),
      { numRuns: 25 },
    );
  });

  it("emits only addresses that match the segment grammar, and one binding per affordance x action x participant", () => {
    fc.assert(
      fc.property(variantArb, (variant) => {
        const model = compileDoc(variantDoc(variant));
        const addresses = addressesIn(model);
        assert.ok(addresses.length > 20);
        for (const address of addresses) assert.ok(addressKind(address), `not an address: ${address}`);
        for (const policy of Object.values(model.autonomousPolicies)) {
          for (const binding of policy.executionBindings)
            assert.equal(addressKind(binding.bindingId), "participant.autonomous-execution.*.binding.*");
        }
        const policyBindings = (1 + variant.affordances.length) * 1;
        const manualBindings = variant.manualSpec ? 1 + variant.agents.length : 0;
        assert.equal(model.affordanceBindings.length, policyBindings + manualBindings);
      }),
      { numRuns: 25 },
    );
  });
});

const lines = EXAMPLE_TEXT.split("\n");

const textMutation = fc.oneof(
  fc.record({ kind: fc.constant("delete" as const), line: fc.nat(lines.length - 1) }),
  fc.record({ kind: fc.constant("duplicate" as const), line: fc.nat(lines.length - 1) }),
  fc.record({
    kind: fc.constant("insert" as const),
    at: fc.nat(EXAMPLE_TEXT.length),
    text: fc.string({ maxLength: 12 }),
  }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat(EXAMPLE_TEXT.length) }),
  fc.record({
    kind: fc.constant("indent" as const),
    line: fc.nat(lines.length - 1),
    by: fc.integer({ min: -4, max: 4 }),
  }),
);

type TextMutation = typeof textMutation extends fc.Arbitrary<infer T> ? T : never;

function mutateText(mutation: TextMutation): string {
  const copy = [...lines];
  switch (mutation.kind) {
    case "delete":
      copy.splice(mutation.line, 1);
      return copy.join("\n");
    case "duplicate":
      copy.splice(mutation.line, 0, copy[mutation.line] ?? "");
      return copy.join("\n");
    case "insert":
      return EXAMPLE_TEXT.slice(0, mutation.at) + mutation.text + EXAMPLE_TEXT.slice(mutation.at);
    case "truncate":
      return EXAMPLE_TEXT.slice(0, mutation.at);
    case "indent": {
      const line = copy[mutation.line] ?? "";
      copy[mutation.line] = mutation.by >= 0 ? " ".repeat(mutation.by) + line : line.slice(-mutation.by);
      return copy.join("\n");
    }
  }
}

function setAt(doc: Doc, path: readonly string[], value: unknown): void {
  let node: unknown = doc;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== "object") return;
    node = (node as Record<string, unknown>)[key];
  }
  if (node !== null && typeof node === "object")
    (node as Record<string, unknown>)[path.at(-1) as string] = value;
}

const EXAMPLE_PATHS: string[][] = [];
(function collect(value: unknown, path: string[]) {
  if (path.length > 0) EXAMPLE_PATHS.push(path);
  if (value !== null && typeof value === "object") {
    for (const [key, entry] of Object.entries(value)) collect(entry, [...path, key]);
  }
})(parse(EXAMPLE_TEXT), []);

function checkLoads(text: string): void {
  const { scenario, diagnostics } = loadScenario(text, { source: "text" });
  for (const diagnostic of diagnostics) {
    assert.ok(diagnostic.line >= 1 && diagnostic.column >= 1);
    assert.ok(diagnostic.path === "" || diagnostic.path.startsWith("/"));
  }
  if (scenario === undefined) assert.ok(hasErrors(diagnostics));
  if (scenario !== undefined && !hasErrors(diagnostics)) {
    for (const address of addressesIn(compileScenario(scenario))) assert.ok(addressKind(address), address);
  }
}

describe("loader robustness", () => {
  it("never throws on text mutations of the example; it returns positioned diagnostics", () => {
    fc.assert(
      fc.property(textMutation, (mutation) => checkLoads(mutateText(mutation))),
      { numRuns: 100 },
    );
  });

  it("never throws when any value of the example is replaced by arbitrary JSON", () => {
    fc.assert(
      fc.property(fc.constantFrom(...EXAMPLE_PATHS), fc.jsonValue({ maxDepth: 3 }), (path, value) => {
        const doc: Doc = parse(EXAMPLE_TEXT);
        setAt(doc, path, value);
        checkLoads(stringify(doc));
      }),
      { numRuns: 100 },
    );
  });
});
