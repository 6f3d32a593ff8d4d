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

const viewTransition = struct({
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
});

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
    },
  ],
);
