import { bool, choice, integer, list, text } from "./shape.js";
import { optional, required, struct, withDefault } from "./struct.js";

const prose = () => text({ nonEmpty: true });

function greatestCommonDivisor(a: number, b: number): number {
  return b === 0 ? a : greatestCommonDivisor(b, a % b);
}

const exactRatio = struct(
  { numerator: required(integer({ min: 1 })), denominator: required(integer({ min: 1 })) },
  [
    (ratio, fail) => {
      if (greatestCommonDivisor(ratio.numerator, ratio.denominator) !== 1)
        fail("exact ratios must be reduced");
    },
  ],
);

const coordinate = struct({ tick: required(integer()), microstep: withDefault(integer({ min: 0 }), 0) });

/** A time domain (`time_domains.<name>`). */
export const timeDomainShape = struct(
  {
    kind: required(choice(["wall_clock", "monotonic", "simulated", "logical", "external"])),
    tick_period_seconds: required(exactRatio),
    epoch: required(choice(["unix", "scenario_start", "run_start", "unanchored", "external"])),
    visibility: withDefault(choice(["runtime_only", "participant_visible", "evidence_only"]), "runtime_only"),
    description: required(prose()),
  },
  [
    (domain, fail) => {
      if (domain.kind === "wall_clock" && domain.epoch !== "unix")
        fail("wall_clock domains need the unix epoch");
      if (domain.kind === "monotonic" && domain.epoch === "unix")
        fail("monotonic domains cannot use the unix epoch");
    },
  ],
);

/** A clock (`clocks.<name>`). */
export const clockShape = struct(
  {
    time_domain_ref: required(prose()),
    authority_kind: required(choice(["runtime", "backend", "system", "external"])),
    authority_ref: required(prose()),
    monotonicity: required(choice(["strict", "non_decreasing", "may_jump"])),
    supports_pause: withDefault(bool(), false),
    supports_reset: withDefault(bool(), false),
    supports_jump: withDefault(bool(), false),
    description: required(prose()),
  },
  [
    (clock, fail) => {
      if ((clock.monotonicity === "may_jump") !== clock.supports_jump) {
        fail("supports_jump must be true exactly when monotonicity is may_jump", "supports_jump");
      }
    },
  ],
);

/** A time progression policy (`time_progression_policies.<name>`). */
export const progressionPolicyShape = struct(
  {
    clock_ref: required(prose()),
    advancement_mode: required(
      choice(["real_time", "dilated", "stepped", "event_driven", "externally_paced"]),
    ),
    pacing_ratio: optional(exactRatio),
    synchronization_mode: required(choice(["none", "authority", "barrier", "conservative"])),
    step_ticks: optional(integer({ min: 1 })),
    drift_bound_ticks: optional(integer({ min: 0 })),
    reset_behavior: required(choice(["new_segment_zero", "new_segment_preserve_value", "unsupported"])),
    replay_behavior: required(choice(["restart_from_anchor", "restore_recorded_advances", "unsupported"])),
    description: required(prose()),
  },
  [
    (policy, fail) => {
      const stepped = policy.advancement_mode === "stepped";
      if (stepped && policy.step_ticks === undefined)
        fail("stepped progression needs step_ticks", "step_ticks");
      if (!stepped && policy.step_ticks !== undefined)
        fail("step_ticks is only valid when stepped", "step_ticks");
      const paced = policy.advancement_mode === "real_time" || policy.advancement_mode === "dilated";
      const ratio = policy.pacing_ratio;
      if (!paced && ratio !== undefined && (ratio.numerator !== 1 || ratio.denominator !== 1)) {
        fail("pacing_ratio only applies to real_time or dilated progression", "pacing_ratio");
      }
    },
  ],
);

/** A temporal constraint (`temporal_constraints.<name>`). */
export const temporalConstraintShape = struct(
  {
    constraint_kind: required(choice(["precedence", "duration", "window", "deadline", "cadence"])),
    clock_ref: required(prose()),
    subject_refs: required(list(prose(), { unique: true, minItems: 1 })),
    start: optional(coordinate),
    end: optional(coordinate),
    duration_ticks: optional(integer({ min: 1 })),
    cadence_ticks: optional(integer({ min: 1 })),
    description: required(prose()),
  },
  [
    (constraint, fail) => {
      const { start, end } = constraint;
      if (
        start &&
        end &&
        (end.tick < start.tick || (end.tick === start.tick && end.microstep < start.microstep))
      ) {
        fail("end must not precede start", "end");
      }
      const kind = constraint.constraint_kind;
      if (kind === "precedence" && constraint.subject_refs.length !== 2) {
        fail("precedence constraints need exactly two subject_refs", "subject_refs");
      }
      if (kind === "duration" && constraint.duration_ticks === undefined)
        fail("duration constraints need duration_ticks");
      if (kind === "window" && (start === undefined || end === undefined))
        fail("window constraints need start and end");
      if (kind === "deadline" && end === undefined) fail("deadline constraints need end");
      if (kind === "cadence" && constraint.cadence_ticks === undefined)
        fail("cadence constraints need cadence_ticks");
    },
  ],
);
