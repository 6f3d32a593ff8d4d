import { KILL_POINTS, type KillPoint, TOOL_CALLS } from "./kill-points.js";

/** One planned kill of the suite. */
export interface PlannedKill {
  readonly point: KillPoint;
  readonly call: number;
  readonly warmups: number;
  readonly repetition: number;
}

/**
 * Every kill point `repetitions` times; the interrupted tool call and whether a whole invocation
 * ran first rotate, so later admission ordinals and non-empty prior history are covered too.
 */
export function plannedKills(repetitions: number): PlannedKill[] {
  return KILL_POINTS.flatMap((point, p) =>
    Array.from({ length: repetitions }, (_, repetition) => ({
      point,
      call: point === "commit-before" ? TOOL_CALLS : ((p + repetition) % TOOL_CALLS) + 1,
      warmups: (p + repetition) % 2,
      repetition,
    })),
  );
}

/** A readable test name for a planned kill. */
export function killName(kill: PlannedKill): string {
  const prior = kill.warmups === 0 ? "first invocation" : `after ${kill.warmups} whole invocation`;
  return `SIGKILL at ${kill.point}, tool call ${kill.call}, ${prior} (run ${kill.repetition + 1})`;
}
