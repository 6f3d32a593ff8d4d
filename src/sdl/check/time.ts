import { DiagnosticCode } from "../codes.js";
import type { Finding } from "../diagnostics.js";
import { joinPointer } from "../diagnostics.js";
import type { ScenarioIndex } from "../refs.js";
import { resolvesNamed } from "./references.js";

type Report = (finding: Finding) => void;

/** Checks the time model's refs: clock domains, progression clocks and constraint clocks and subjects. */
export function checkTimeModel(index: ScenarioIndex, report: Report): void {
  const { clocks, time_domains, time_progression_policies, temporal_constraints } = index.scenario;
  for (const [name, clock] of Object.entries(clocks)) {
    // RAES resolves the time-model refs by bare name only.
    if (!Object.hasOwn(time_domains, clock.time_domain_ref)) {
      report({
        code: DiagnosticCode.clockTimeDomainUnbound,
        message: `clock '${name}' names undeclared time domain '${clock.time_domain_ref}'`,
        path: joinPointer("/clocks", name, "time_domain_ref"),
      });
    }
  }
  const owners = new Map<string, string>();
  for (const [name, policy] of Object.entries(time_progression_policies)) {
    const path = joinPointer("/time_progression_policies", name, "clock_ref");
    const clockName = Object.hasOwn(clocks, policy.clock_ref) ? policy.clock_ref : undefined;
    const owner = owners.get(policy.clock_ref);
    if (owner !== undefined) {
      report({
        code: DiagnosticCode.progressionClockDuplicate,
        message: `clock '${policy.clock_ref}' is already driven by progression policy '${owner}'`,
        path,
      });
    }
    owners.set(policy.clock_ref, name);
    const clock = clockName === undefined ? undefined : clocks[clockName];
    if (clock === undefined) {
      report({
        code: DiagnosticCode.progressionClockUnbound,
        message: `'${policy.clock_ref}' names no declared clock`,
        path,
      });
      continue;
    }
    for (const field of ["reset_behavior", "replay_behavior"] as const) {
      if (policy[field] !== "unsupported" && !clock.supports_reset) {
        report({
          code: DiagnosticCode.progressionResetUnsupported,
          message: `${field} '${policy[field]}' needs clock '${clockName}' to support reset`,
          path: joinPointer("/time_progression_policies", name, field),
        });
      }
    }
  }
  for (const [name, constraint] of Object.entries(temporal_constraints)) {
    const at = joinPointer("/temporal_constraints", name);
    if (!Object.hasOwn(clocks, constraint.clock_ref)) {
      report({
        code: DiagnosticCode.constraintClockUnbound,
        message: `'${constraint.clock_ref}' names no declared clock`,
        path: joinPointer(at, "clock_ref"),
      });
    }
    constraint.subject_refs.forEach((ref, i) => {
      if (resolvesNamed(index, ref)) return;
      report({
        code: DiagnosticCode.constraintSubjectUnbound,
        message: `subject '${ref}' names nothing declared`,
        path: joinPointer(at, "subject_refs", i),
      });
    });
  }
}
