import type { RuntimeModel } from "../compiler/index.js";
import type { ParticipantToolActionRefusal } from "../port/index.js";
import type { ControlPlaneStore } from "../store/index.js";
import type { StochasticControl } from "./activity-controls.js";
import type { LateOutcome } from "./deadline.js";
import type { InvocationSummary } from "./invocation.js";
import type { ParticipantShare } from "./participant-leases.js";
import type { RuntimeTimers } from "./timers.js";
import type { ParticipantRuntime } from "./types.js";

/** An installed participant-crossing policy; while one is installed no tool action is admitted. */
export interface ParticipantCrossingPolicy {
  readonly name: string;
}

/** Callbacks for progress reporting; they observe and never steer. */
export interface RuntimeObserver {
  invocationClosed?(summary: InvocationSummary): void;
  toolActionRefused?(refusal: ParticipantToolActionRefusal): void;
  /** A timed-out invocation's harness ended after all; its result was discarded. Told once per invocation. */
  lateResultDiscarded?(invocationId: string, how: LateOutcome): void;
  /** This process's share of the participants changed (processes joined or left, leases handed over). */
  shareChanged?(share: ParticipantShare): void;
}

/** Options of `RuntimeManager.open`. */
export interface RuntimeManagerOptions {
  readonly model: RuntimeModel;
  /** The backend manifest JSON (snake_case, as in the file). */
  readonly manifest: unknown;
  readonly runtime: ParticipantRuntime;
  /** A store, or a URL (`memory:`, `sqlite:PATH`, `postgres://…`). Default: memory. */
  readonly store?: ControlPlaneStore | string;
  readonly crossingPolicy?: ParticipantCrossingPolicy;
  /** Wall clock in epoch milliseconds, for timestamps and leases. */
  readonly now?: () => number;
  readonly ownerId?: string;
  /** How long a scheduler lease and a process heartbeat last without renewal (default 30000). */
  readonly leaseTtlMs?: number;
  readonly observer?: RuntimeObserver;
  /** Where operator notes go, such as why a ledger write failed; default: one line on stderr. */
  readonly log?: (line: string) => void;
  /** Run-supplied `agent-policy` controls for v2 policies (docs/design.md §8); seeds are never stored. */
  readonly stochasticControls?: readonly StochasticControl[];
  /** Timers for invocation timeouts and real-time pacing; default the process clock. */
  readonly timers?: RuntimeTimers;
  /**
   * How many due participants' invocations may run at once within a step (I/O-bound agents overlap);
   * default the manifest's `max_autonomous_in_flight`, unbounded when it declares none.
   */
  readonly concurrency?: number;
}

/** Options of one `step` or `run` call. */
export interface StepOptions {
  /** Overrides the manager's `concurrency` for this call. */
  readonly concurrency?: number;
}

/** What one `step(n)` did. */
export interface StepSummary {
  readonly steps: number;
  readonly invocations: readonly InvocationSummary[];
}
