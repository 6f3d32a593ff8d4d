import type { ScheduleSpec } from "./plan.js";

const indexes = new WeakMap<readonly ScheduleSpec[], Map<string, ScheduleSpec>>();
/** The key of a participant's schedule under a policy in the runtime's maps. */
export function scheduleKey(participantAddress: string, policyAddress: string): string {
  return `${participantAddress}\u0000${policyAddress}`;
}

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
    index = new Map(specs.map((s) => [scheduleKey(s.participantAddress, s.policy.address), s]));
    indexes.set(specs, index);
  }
  return index.get(scheduleKey(participantAddress, policyAddress));
}
