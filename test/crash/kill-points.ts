/** Where a crash test kills the runtime process, in the order an invocation reaches them. */
export const KILL_POINTS = [
  /** Inside the claim write, before the store is asked to insert it. */
  "admit-write-before",
  /** Inside the claim write, after the store committed it, before `admit` returns. */
  "admit-write-after",
  /** `admit` returned an admitted decision; nothing dispatched. */
  "after-admit",
  /** `dispatch` returned an accepted receipt; the tool has not run. */
  "after-dispatch",
  /** The tool's effect line is on disk; `complete` not called. */
  "during-tool",
  /** `complete` returned ok; the invocation has not closed. */
  "after-complete",
  /** Inside the close commit, before the store is asked to commit it. */
  "commit-before",
  /** The harness admits and dispatches in one step (`admitAndDispatch`): inside its one write, before the store is asked. */
  "combined-write-before",
  /** Inside the combined write, after the store committed the dispatched record, before the answer. */
  "combined-write-after",
  /** The combined step returned its accepted receipt; the tool has not run. */
  "combined-after",
] as const;
/** A kill point. */
export type KillPoint = (typeof KILL_POINTS)[number];

/** Tool calls each invocation of the crash harness makes. */
export const TOOL_CALLS = 3;

/** Owner id of the crashed runtime and of its restart, as one host restarting its runtime. */
export const CRASH_OWNER = "crash-test-runtime";

/** How the tool action of the killed call must look after recovery. */
export type KilledCallOutcome = "absent" | "withheld" | "indeterminate" | "succeeded";

/** The restart rule each kill point exercises for the call it interrupts. */
export const KILLED_CALL_OUTCOME: Readonly<Record<KillPoint, KilledCallOutcome>> = {
  "admit-write-before": "absent",
  "admit-write-after": "withheld",
  "after-admit": "withheld",
  "after-dispatch": "indeterminate",
  "during-tool": "indeterminate",
  "after-complete": "succeeded",
  "commit-before": "succeeded",
  "combined-write-before": "absent",
  // Durably dispatched though no one was told: the tool may have run, as far as a restart can know.
  "combined-write-after": "indeterminate",
  "combined-after": "indeterminate",
};

/** Whether the killed call's effect line must be on disk. */
export const KILLED_CALL_EFFECT: Readonly<Record<KillPoint, boolean>> = {
  "admit-write-before": false,
  "admit-write-after": false,
  "after-admit": false,
  "after-dispatch": false,
  "during-tool": true,
  "after-complete": true,
  "commit-before": true,
  "combined-write-before": false,
  "combined-write-after": false,
  "combined-after": false,
};

/** What the child had announced for the killed call when it died: admitted, dispatched, completed. */
export const KILLED_CALL_ANNOUNCED: Readonly<Record<KillPoint, readonly [boolean, boolean, boolean]>> = {
  "admit-write-before": [false, false, false],
  "admit-write-after": [false, false, false],
  "after-admit": [true, false, false],
  "after-dispatch": [true, true, false],
  "during-tool": [true, true, false],
  "after-complete": [true, true, true],
  "commit-before": [true, true, true],
  "combined-write-before": [false, false, false],
  "combined-write-after": [false, false, false],
  "combined-after": [true, true, false],
};

/** Whether the child's harness admits and dispatches in one step for this kill point. */
export function combinedAt(point: string): boolean {
  return point.startsWith("combined-");
}
