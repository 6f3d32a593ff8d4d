import type { ScheduleSpec } from "./plan.js";

const indexes = new WeakMap<readonly ScheduleSpec[], Map<string, ScheduleSpec>>();
const key = (participant: string, policy: string) => `${participant}\u0000${policy}`;

/**
 * The schedule of a participant under a policy, from an index built once per list of specs: a scan
 * of every spec per due participant made each step grow with the square of the participants.
 */
export function specOf(
  specs: readonly ScheduleSpec[],
  participantAddress: string,
  policyAddress: string,
): ScheduleSpec | undefined {
  let index = indexes.get(specs);
  if (!index) {
    index = new Map(specs.map((s) => [key(s.participantAddress, s.policy.address), s]));
    indexes.set(specs, index);
  }
  return index.get(key(participantAddress, policyAddress));
}
