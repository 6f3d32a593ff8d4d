import type { Infer } from "./shape.js";
import { integer, list, text } from "./shape.js";
import { optional, required, struct, withDefault } from "./struct.js";

const prose = () => text({ nonEmpty: true });
const refs = () => list(prose());

/** RAES's view dispositions. */
export const VIEW_DISPOSITIONS = [
  "observable",
  "hidden",
  "evidence_only",
  "discovered",
  "inferred",
  "disclosed",
  "concealed",
  "deceptive",
] as const;

const BOUNDARY_CLASSES = [
  "observable_resource",
  "telemetry_stream",
  "tool_output",
  "instruction",
  "public_task_statement",
  "starter_file",
  "scaffold_instruction",
  "subtask_guidance",
  "hidden_truth",
  "private_answer_key",
  "canary",
  "holdout_variant",
  "adjudication_material",
  "archival_evidence",
] as const;

const SENSITIVE_CLASSES: readonly string[] = [
  "hidden_truth",
  "private_answer_key",
  "canary",
  "holdout_variant",
  "adjudication_material",
];
const EXPOSING: readonly string[] = ["discovered", "inferred", "disclosed", "deceptive"];

const viewRule = struct(
  {
    information_ref: required(prose()),
    boundary_class: required(text({ oneOf: BOUNDARY_CLASSES })),
    disposition: required(text({ oneOf: VIEW_DISPOSITIONS })),
    visibility_basis: required(prose()),
    disclosure_rule: optional(prose()),
    effective_from: optional(prose()),
    evidence_refs: withDefault(refs(), []),
    realized_backend_disclosure: optional(prose()),
    certainty: optional(prose()),
    latency_profile: optional(prose()),
  },
  [
    (rule, fail) => {
      if (rule.disposition === "disclosed" && rule.disclosure_rule === undefined) {
        fail("disclosed view rules need a disclosure_rule", "disclosure_rule");
      }
      if (SENSITIVE_CLASSES.includes(rule.boundary_class)) {
        if (rule.disposition === "observable") {
          fail(`${rule.boundary_class} must use disposition disclosed, not observable`, "disposition");
        } else if (EXPOSING.includes(rule.disposition) && rule.disclosure_rule === undefined) {
          fail(`${rule.boundary_class} exposure needs a disclosure_rule`, "disclosure_rule");
        }
      }
      if (rule.disposition === "evidence_only" && rule.evidence_refs.length === 0) {
        fail("evidence_only view rules need evidence_refs", "evidence_refs");
      }
    },
  ],
);

/** The dispositions each transition kind may move a ref to (RAES SEM-210). */
const TRANSITION_TARGETS: Readonly<Record<string, readonly string[]>> = {
  discovery: ["discovered"],
  inference: ["inferred"],
  concealment: ["concealed"],
  disclosure: ["disclosed"],
  revocation: ["hidden", "concealed"],
  deception: ["deceptive"],
};

const viewTransition = struct(
  {
    transition_id: required(prose()),
    transition_kind: required(
      text({ oneOf: ["discovery", "inference", "concealment", "disclosure", "revocation", "deception"] }),
    ),
    information_ref: required(prose()),
    trigger: required(prose()),
    effective_from: required(prose()),
    effective_order: required(integer({ min: 0 })),
    history_event_type: required(
      text({
        oneOf: ["action_attempted", "state_transition_recorded", "observation_emitted", "episode_close"],
      }),
    ),
    action_instance_id: optional(prose()),
    from_disposition: required(text({ oneOf: VIEW_DISPOSITIONS })),
    to_disposition: required(text({ oneOf: VIEW_DISPOSITIONS })),
    disclosure_rule: optional(prose()),
    evidence_refs: withDefault(refs(), []),
    certainty: required(prose()),
    latency_profile: required(prose()),
    realized_backend_disclosure: optional(prose()),
  },
  [
    (transition, fail) => {
      const allowed = TRANSITION_TARGETS[transition.transition_kind] ?? [];
      if (!allowed.includes(transition.to_disposition)) {
        fail(
          `${transition.transition_kind} transitions require to_disposition in: ${allowed.join(", ")}`,
          "to_disposition",
        );
      }
      if (transition.from_disposition === transition.to_disposition) {
        fail("a view transition must alter the disposition", "to_disposition");
      }
      if (transition.transition_kind === "disclosure" && transition.disclosure_rule === undefined) {
        fail("disclosure transitions need a disclosure_rule", "disclosure_rule");
      }
      if (transition.evidence_refs.length === 0) fail("view transitions need evidence_refs", "evidence_refs");
      const closing = transition.history_event_type === "episode_close";
      if (closing && transition.action_instance_id !== undefined) {
        fail("episode_close transitions must not set action_instance_id", "action_instance_id");
      }
      if (!closing && transition.action_instance_id === undefined) {
        fail("transitions other than episode_close need an action_instance_id", "action_instance_id");
      }
    },
  ],
);

type Boundary = {
  readonly observable_refs: readonly string[];
  readonly hidden_refs: readonly string[];
  readonly evidence_refs: readonly string[];
  readonly view_rules: readonly Infer<typeof viewRule>[];
  readonly view_transitions: readonly Infer<typeof viewTransition>[];
};
type Fail = (message: string, ...path: (string | number)[]) => void;

/** RAES's projection rules: what is observable, hidden and evidence must not leak into each other. */
function checkProjection(boundary: Boundary, fail: Fail): void {
  const evidenceOnly = new Set(
    boundary.view_rules
      .filter((rule) => rule.disposition === "evidence_only")
      .map((rule) => rule.information_ref),
  );
  const hidden = new Set(boundary.hidden_refs);
  boundary.observable_refs.forEach((ref, index) => {
    if (evidenceOnly.has(ref))
      fail(`evidence_only ref '${ref}' must not also be observable`, "observable_refs", index);
  });
  boundary.evidence_refs.forEach((ref, index) => {
    if (hidden.has(ref) && !evidenceOnly.has(ref)) {
      fail(
        `hidden ref '${ref}' may be evidence only through an evidence_only view rule`,
        "evidence_refs",
        index,
      );
    }
  });
}

/** RAES's transition timeline: unique orders, sensitive exposure disclosed, and each from_disposition matching the view at that point. */
function checkTransitionTimeline(boundary: Boundary, fail: Fail): void {
  const rules = new Map(boundary.view_rules.map((rule) => [rule.information_ref, rule]));
  const orders = new Set<number>();
  boundary.view_transitions.forEach((transition, index) => {
    if (orders.has(transition.effective_order)) {
      fail(
        `effective_order ${transition.effective_order} is repeated`,
        "view_transitions",
        index,
        "effective_order",
      );
    }
    orders.add(transition.effective_order);
    const rule = rules.get(transition.information_ref);
    if (
      rule !== undefined &&
      SENSITIVE_CLASSES.includes(rule.boundary_class) &&
      EXPOSING.includes(transition.to_disposition) &&
      transition.disclosure_rule === undefined
    ) {
      const message = `${transition.transition_kind} transitions exposing ${rule.boundary_class} need a disclosure_rule`;
      fail(message, "view_transitions", index, "disclosure_rule");
    }
  });
  const view = new Map(boundary.view_rules.map((rule) => [rule.information_ref, rule.disposition as string]));
  const ordered = boundary.view_transitions
    .map((transition, index) => ({ transition, index }))
    .sort((a, b) => a.transition.effective_order - b.transition.effective_order);
  for (const { transition, index } of ordered) {
    const current = view.get(transition.information_ref);
    if (current === undefined) continue;
    if (current !== transition.from_disposition) {
      const message = `view transition '${transition.transition_id}' from_disposition does not match the current disposition '${current}'`;
      fail(message, "view_transitions", index, "from_disposition");
    }
    view.set(transition.information_ref, transition.to_disposition);
  }
}

/** A participant observation boundary (`observation_boundaries.<name>`). */
export const observationBoundaryShape = struct(
  {
    projection_basis: required(prose()),
    observable_refs: withDefault(refs(), []),
    hidden_refs: withDefault(refs(), []),
    evidence_refs: withDefault(refs(), []),
    redaction_policy: required(prose()),
    latency_profile: required(prose()),
    observer_effects: withDefault(list(text()), []),
    view_rules: withDefault(list(viewRule), []),
    view_transitions: withDefault(list(viewTransition), []),
    realized_view_disclosure: optional(prose()),
  },
  [
    (boundary, fail) => {
      if (boundary.observable_refs.length === 0 && boundary.evidence_refs.length === 0) {
        fail("an observation boundary needs observable_refs or evidence_refs");
      }
      const hidden = new Set(boundary.hidden_refs);
      boundary.observable_refs.forEach((ref, index) => {
        if (hidden.has(ref)) fail(`'${ref}' is both observable and hidden`, "observable_refs", index);
      });
      const classified = new Set<string>();
      boundary.view_rules.forEach((rule, index) => {
        if (classified.has(rule.information_ref)) {
          fail(
            `'${rule.information_ref}' has more than one view rule`,
            "view_rules",
            index,
            "information_ref",
          );
        }
        classified.add(rule.information_ref);
      });
      const ids = new Set<string>();
      boundary.view_transitions.forEach((transition, index) => {
        if (ids.has(transition.transition_id)) {
          fail(
            `transition_id '${transition.transition_id}' is repeated`,
            "view_transitions",
            index,
            "transition_id",
          );
        }
        ids.add(transition.transition_id);
        if (!classified.has(transition.information_ref)) {
          const message = `view transition '${transition.transition_id}' has no matching view rule`;
          fail(message, "view_transitions", index, "information_ref");
        }
      });
      checkProjection(boundary, fail);
      checkTransitionTimeline(boundary, fail);
    },
  ],
);
