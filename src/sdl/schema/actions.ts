import { list, nullable, opaque, record, text } from "./shape.js";
import { optional, required, struct, withDefault } from "./struct.js";

const refs = () => list(text({ nonEmpty: true }), { unique: true });
const entries = () => list(text({ nonEmpty: true }), { unique: true });
const prose = () => text({ nonEmpty: true });

/** RAES's portable failure classes. */
export const FAILURE_CLASSES = [
  "precondition_unsatisfied",
  "unsupported_action",
  "target_unavailable",
  "authority_denied",
  "resource_exhausted",
  "timeout",
  "interrupted",
  "contention_lost",
  "partial_success",
  "unsafe_withheld",
  "backend_error",
  "unknown",
] as const;

const precondition = struct({
  precondition_id: required(prose()),
  precondition_class: required(
    text({
      oneOf: [
        "authority",
        "capability",
        "target",
        "knowledge",
        "resource",
        "temporal",
        "interaction",
        "realization",
      ],
    }),
  ),
  description: required(prose()),
  support_refs: withDefault(refs(), []),
  evidence_refs: withDefault(refs(), []),
});

const EFFECT_CLASSES = [
  "intended_effect",
  "side_effect",
  "observation_effect",
  "visibility_effect",
  "detection_effect",
  "evidence_effect",
  "no_effect",
  "unknown_effect",
] as const;

const effect = struct(
  {
    effect_id: required(prose()),
    effect_class: required(text({ oneOf: EFFECT_CLASSES })),
    description: required(prose()),
    target_refs: withDefault(refs(), []),
    evidence_refs: withDefault(refs(), []),
  },
  [
    (value, fail) => {
      const exempt = value.effect_class === "no_effect" || value.effect_class === "unknown_effect";
      if (!exempt && value.target_refs.length === 0 && value.evidence_refs.length === 0) {
        fail(`${value.effect_class} effects need target_refs or evidence_refs`);
      }
    },
  ],
);

const failureMapping = struct({
  backend_error_code: required(prose()),
  failure_class: required(text({ oneOf: FAILURE_CLASSES })),
  diagnostic: required(prose()),
});

const interaction = struct(
  {
    interaction_class: required(
      text({ oneOf: ["coordination", "contention", "interference", "shared_state_change"] }),
    ),
    target: required(prose()),
    rationale: required(prose()),
    related_actions: withDefault(list(prose()), []),
    shared_state_refs: withDefault(list(prose()), []),
  },
  [
    (value, fail) => {
      const needsRelated =
        value.interaction_class === "coordination" || value.interaction_class === "interference";
      if (needsRelated && value.related_actions.length === 0) {
        fail(`${value.interaction_class} interactions need related_actions`);
      }
      if (!needsRelated && value.shared_state_refs.length === 0) {
        fail(`${value.interaction_class} interactions need shared_state_refs`);
      }
    },
  ],
);

const externalMapping = struct({
  system: required(prose()),
  identifier: required(prose()),
  loss_label: required(prose()),
  rationale: required(prose()),
});

/** RAES's temporal event points. */
const EVENT_POINTS = [
  "submit",
  "start",
  "end",
  "observed",
  "effective",
  "deadline",
  "window_open",
  "window_close",
  "reset",
  "replay",
] as const;
type EventPoint = (typeof EVENT_POINTS)[number];

/** Temporal kinds that need a `window_ref`, a `duration_ref`, both boundaries, or a `randomization_basis`. */
const WINDOW_KINDS: ReadonlySet<string> = new Set(["schedule", "time_window", "dwell"]);
const DURATION_KINDS: ReadonlySet<string> = new Set([
  "cadence",
  "deadline",
  "dwell",
  "latency",
  "timeout",
  "cooldown",
]);
const BOUNDARY_KINDS: ReadonlySet<string> = new Set([...DURATION_KINDS, "time_window"]);
const RANDOMIZED_KINDS: ReadonlySet<string> = new Set(["cadence", "time_window"]);

/** The event points each kind needs: `some` of a group, or `all` of one; `atLeast` points in total. */
interface EventPointRule {
  readonly atLeast?: number;
  readonly groups: readonly { readonly some?: readonly EventPoint[]; readonly all?: readonly EventPoint[] }[];
  readonly message: string;
}
const EVENT_POINT_RULES: Readonly<Record<string, readonly EventPointRule[]>> = {
  schedule: [{ groups: [{ some: ["submit", "start"] }], message: "need submit or start event_points" }],
  time_window: [
    {
      groups: [{ all: ["window_open", "window_close"] }],
      message: "need window_open and window_close event_points",
    },
  ],
  deadline: [
    { atLeast: 2, groups: [], message: "need at least two event_points" },
    { groups: [{ all: ["deadline"] }], message: "need a deadline event_point" },
    {
      groups: [{ some: ["end", "observed", "effective"] }],
      message: "need end, observed or effective event_points",
    },
  ],
  dwell: [
    { atLeast: 2, groups: [], message: "need at least two event_points" },
    {
      groups: [{ some: ["start", "window_open"] }, { some: ["end", "window_close"] }],
      message: "need start/window_open and end/window_close event_points",
    },
  ],
  cadence: [
    {
      groups: [{ some: ["submit", "start", "observed", "effective"] }],
      message: "need submit, start, observed or effective event_points",
    },
  ],
  latency: [{ atLeast: 2, groups: [], message: "need at least two event_points" }],
};

function eventPointsSatisfy(points: readonly string[], rule: EventPointRule): boolean {
  if (rule.atLeast !== undefined && points.length < rule.atLeast) return false;
  return rule.groups.every(
    (group) =>
      (group.some === undefined || group.some.some((point) => points.includes(point))) &&
      (group.all === undefined || group.all.every((point) => points.includes(point))),
  );
}

/** One temporal contract: the fields its kind needs, as RAES requires them (docs/raes-mapping.md). */
const temporalContract = struct(
  {
    temporal_id: required(prose()),
    temporal_kind: required(
      text({
        oneOf: ["schedule", "cadence", "deadline", "dwell", "latency", "time_window", "timeout", "cooldown"],
      }),
    ),
    time_domain: required(
      text({
        oneOf: ["episode_step", "scenario_time", "simulation_time", "backend_time", "wall_clock_time"],
      }),
    ),
    clock_authority: required(prose()),
    event_points: required(list(text({ oneOf: EVENT_POINTS }), { unique: true, minItems: 1 })),
    description: required(prose()),
    window_ref: optional(prose()),
    duration_ref: optional(prose()),
    reset_boundary: optional(prose()),
    replay_boundary: optional(prose()),
    randomization_basis: optional(prose()),
    ordering_basis: required(prose()),
    backend_disclosure_refs: withDefault(refs(), []),
  },
  [
    (value, fail) => {
      const kind = value.temporal_kind;
      const missing = [
        WINDOW_KINDS.has(kind) && value.window_ref === undefined && "window_ref",
        DURATION_KINDS.has(kind) && value.duration_ref === undefined && "duration_ref",
        BOUNDARY_KINDS.has(kind) && value.reset_boundary === undefined && "reset_boundary",
        BOUNDARY_KINDS.has(kind) && value.replay_boundary === undefined && "replay_boundary",
        value.backend_disclosure_refs.length === 0 && "backend_disclosure_refs",
        RANDOMIZED_KINDS.has(kind) && value.randomization_basis === undefined && "randomization_basis",
      ].find((field) => field !== false);
      // RAES stops at the first rule a contract breaks; so does this.
      if (missing !== undefined) {
        fail(`${kind} temporal contracts need ${missing}`);
        return;
      }
      const broken = (EVENT_POINT_RULES[kind] ?? []).find(
        (rule) => !eventPointsSatisfy(value.event_points, rule),
      );
      if (broken !== undefined) fail(`${kind} temporal contracts ${broken.message}`, "event_points");
    },
  ],
);

const timingDisclosure = struct(
  {
    disclosure_id: required(prose()),
    disclosure_kind: required(
      text({ oneOf: ["pacing", "dilation", "synchronization", "serialization", "unsupported_guarantee"] }),
    ),
    support_mode: required(text({ oneOf: ["exact", "bounded", "disclosed_limitation", "unsupported"] })),
    description: required(prose()),
    affected_temporal_ids: required(list(prose(), { unique: true, minItems: 1 })),
    limitations: withDefault(entries(), []),
  },
  [
    (value, fail) => {
      if (value.support_mode !== "exact" && value.limitations.length === 0) {
        fail(`${value.support_mode} timing disclosures need limitations`, "limitations");
      }
    },
  ],
);

function uniqueIds<T>(items: readonly T[], id: (item: T) => string): string | undefined {
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(id(item))) return id(item);
    seen.add(id(item));
  }
  return undefined;
}

type ContractTimeParts = {
  readonly preconditions: readonly { readonly precondition_class: string }[];
  readonly temporal_contracts: readonly {
    readonly temporal_id: string;
    readonly backend_disclosure_refs: readonly string[];
  }[];
  readonly backend_timing_disclosures: readonly {
    readonly disclosure_id: string;
    readonly affected_temporal_ids: readonly string[];
  }[];
};

/**
 * The first cross-field time rule one action contract breaks, in RAES's order (docs/raes-mapping.md):
 * unique `temporal_id` and `disclosure_id`, disclosures and temporal preconditions only beside
 * temporal contracts, and refs in both directions that name what the contract declares.
 */
function temporalBindingProblem(
  value: ContractTimeParts,
): readonly [string, ...(string | number)[]] | undefined {
  const contracts = value.temporal_contracts;
  const disclosures = value.backend_timing_disclosures;
  const repeatedTemporal = uniqueIds(contracts, (item) => item.temporal_id);
  if (repeatedTemporal) return [`temporal_id '${repeatedTemporal}' is repeated`, "temporal_contracts"];
  const repeatedDisclosure = uniqueIds(disclosures, (item) => item.disclosure_id);
  if (repeatedDisclosure) {
    return [`disclosure_id '${repeatedDisclosure}' is repeated`, "backend_timing_disclosures"];
  }
  if (disclosures.length > 0 && contracts.length === 0) {
    return ["backend_timing_disclosures need temporal_contracts", "backend_timing_disclosures"];
  }
  if (contracts.length === 0 && value.preconditions.some((item) => item.precondition_class === "temporal")) {
    return ["temporal preconditions need temporal_contracts", "preconditions"];
  }
  const disclosureIds = new Set(disclosures.map((item) => item.disclosure_id));
  for (const [index, contract] of contracts.entries()) {
    const unknown = contract.backend_disclosure_refs.filter((ref) => !disclosureIds.has(ref));
    if (unknown.length > 0) {
      const names = [...new Set(unknown)].sort().join(", ");
      const message = `temporal contract '${contract.temporal_id}' names undeclared backend_timing_disclosures: ${names}`;
      return [message, "temporal_contracts", index, "backend_disclosure_refs"];
    }
  }
  const temporalIds = new Set(contracts.map((item) => item.temporal_id));
  for (const [index, disclosure] of disclosures.entries()) {
    const unknown = disclosure.affected_temporal_ids.filter((id) => !temporalIds.has(id));
    if (unknown.length > 0) {
      const names = [...new Set(unknown)].sort().join(", ");
      const message = `timing disclosure '${disclosure.disclosure_id}' names undeclared temporal_contracts: ${names}`;
      return [message, "backend_timing_disclosures", index, "affected_temporal_ids"];
    }
  }
  return undefined;
}

/** A participant action contract (`action_contracts.<name>`). */
export const actionContractShape = struct(
  {
    semantic_version: required(prose()),
    lifecycle_state: withDefault(text({ oneOf: ["draft", "active", "deprecated"] }), "active"),
    behavioral_granularity: required(text({ oneOf: ["atomic", "procedure", "aggregate"] })),
    procedure_basis: required(prose()),
    realization_profile: required(prose()),
    fidelity_claim: required(prose()),
    arguments: optional(opaque()),
    preconditions: required(list(precondition, { minItems: 1 })),
    effects: required(list(effect, { minItems: 1 })),
    state_transition_effects: withDefault(entries(), []),
    observation_expectations: withDefault(entries(), []),
    evidence_expectations: withDefault(entries(), []),
    failure_classes: required(list(text({ oneOf: FAILURE_CLASSES }), { unique: true, minItems: 1 })),
    backend_failure_mappings: withDefault(list(failureMapping), []),
    interactions: withDefault(list(interaction), []),
    external_mappings: withDefault(list(externalMapping), []),
    temporal_contracts: withDefault(list(temporalContract), []),
    backend_timing_disclosures: withDefault(list(timingDisclosure), []),
  },
  [
    (value, fail) => {
      const repeatedPrecondition = uniqueIds(value.preconditions, (item) => item.precondition_id);
      if (repeatedPrecondition)
        fail(`precondition_id '${repeatedPrecondition}' is repeated`, "preconditions");
      const repeatedEffect = uniqueIds(value.effects, (item) => item.effect_id);
      if (repeatedEffect) fail(`effect_id '${repeatedEffect}' is repeated`, "effects");
      const repeatedCode = uniqueIds(value.backend_failure_mappings, (item) => item.backend_error_code);
      if (repeatedCode) fail(`backend_error_code '${repeatedCode}' is repeated`, "backend_failure_mappings");
      value.backend_failure_mappings.forEach((mapping, index) => {
        if (!value.failure_classes.includes(mapping.failure_class)) {
          const message = `failure_class '${mapping.failure_class}' is not among the contract's failure_classes`;
          fail(message, "backend_failure_mappings", index, "failure_class");
        }
      });
      const timeProblem = temporalBindingProblem(value);
      if (timeProblem !== undefined) fail(...timeProblem);
    },
  ],
);

/** One participant-to-VM interactive-access binding (RAES DSL-117): portable intent, no locator or credential. */
const interactiveAccess = struct({
  target_ref: required(prose()),
  channel: required(text({ oneOf: ["ssh", "rdp"] })),
  account_ref: optional(nullable(prose())),
});

/** An agent (`agents.<name>`): a role-neutral participant. */
export const agentShape = struct({
  entity: required(text({ nonEmpty: true })),
  description: withDefault(text(), ""),
  actions: withDefault(list(text({ nonEmpty: true }), { dedupe: true }), []),
  starting_accounts: withDefault(list(text()), []),
  initial_knowledge: optional(
    struct({
      hosts: withDefault(list(text()), []),
      subnets: withDefault(list(text()), []),
      services: withDefault(list(text()), []),
      accounts: withDefault(list(text()), []),
    }),
  ),
  allowed_subnets: withDefault(list(text()), []),
  starting_assertions: withDefault(list(text()), []),
  authority_anchors: withDefault(list(text()), []),
  operating_scope: withDefault(list(text()), []),
  observation_boundaries: withDefault(list(text({ nonEmpty: true }), { dedupe: true }), []),
  interactive_access: withDefault(record(interactiveAccess), {}),
});
