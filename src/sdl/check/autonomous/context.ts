import type { Finding } from "../../diagnostics.js";
import type { ScenarioIndex } from "../../refs.js";
import type { AutonomousPolicy, BehaviorSpecification } from "../../schema/index.js";

/** Where a check reports what it finds. */
export type Report = (finding: Finding) => void;

/** One autonomous policy under check, with its specification and participants. */
export interface PolicyContext {
  readonly index: ScenarioIndex;
  readonly specName: string;
  readonly spec: BehaviorSpecification;
  readonly policy: AutonomousPolicy;
  readonly participants: readonly string[];
  readonly at: string;
  readonly report: Report;
}
