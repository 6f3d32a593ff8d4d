import type { RuntimeModel } from "../../compiler/index.js";
import type { BackendManifest } from "../../manifest/index.js";
import type { ParticipantToolActionRefusal } from "../../port/index.js";
import type { ControlPlaneStore } from "../../store/index.js";
import type { RuntimeTimers } from "../clock/index.js";
import type { InvocationSummary, LateOutcome } from "../invocation/index.js";
import type { ParticipantShare, ScheduleSpec } from "../schedule/index.js";
import type { ParticipantRuntime } from "../types.js";
import type { StochasticControl } from "../v2/index.js";
import type { ResourceThrottle } from "./v3.js";

/** Who decides a participant control, and why; `expectedGeneration` is RAES's fence (default: the current one). */
export interface ParticipantControlOptions {
  readonly expectedGeneration?: number;
  readonly operator?: string;
  readonly note?: string;
  /** A drain's bound on waiting for open invocations (default 30000 ms). */
  readonly drainTimeoutMs?: number;
}

/** Who starts a participant's new episode, with what id (default: the next `<participant>-episode-<n>`) and why. */
export interface ParticipantEpisodeOptions {
  readonly episodeId?: string;
  /** Why the live episode is replaced (reset and restart). */
  readonly reason?: string;
  readonly operator?: string;
  readonly note?: string;
}

/** What the manager needs to keep the participants' execution services. */
export interface ServiceContext {
  readonly specs: readonly ScheduleSpec[];
  readonly model: RuntimeModel;
  readonly manifest: BackendManifest;
  readonly runtime: ParticipantRuntime;
  readonly nowMs: () => number;
}

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
  /** A v3 attempt was throttled and held back; nothing reached the native runtime (DESIGN §15). */
  resourceThrottled?(throttle: ResourceThrottle): void;
}

/** How long a scheduler lease and a process heartbeat last without renewal, unless `leaseTtlMs` says. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

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
  /**
   * Whether the heartbeat and the held leases are renewed in the background, every quarter of a
   * lease lifetime, between and during steps, so a step that outlasts a lifetime or a paced run's
   * long sleep keeps its participants (docs/guide/stores.md). Default: on, unless `now` is injected
   * (simulated time passes only when its caller moves it). It judges what is stale by `now`, and
   * leases expire by the store's clock, so with an injected `now` that stands still it renews nothing.
   */
  readonly keepAlive?: boolean;
  readonly observer?: RuntimeObserver;
  /** Where operator notes go, such as why a ledger write failed; default: one line on stderr. */
  readonly log?: (line: string) => void;
  /** Run-supplied `agent-policy` controls for v2 policies; seeds are never stored. */
  readonly stochasticControls?: readonly StochasticControl[];
  /** Timers for invocation timeouts and real-time pacing; default the process clock. */
  readonly timers?: RuntimeTimers;
  /**
   * How many due participants' invocations may run at once within a step (I/O-bound agents overlap);
   * default the manifest's `max_autonomous_in_flight`, unbounded when it declares none.
   */
  readonly concurrency?: number;
  /**
   * Accept a policy that differs from the one the store's schedules run under (by RAES's policy digest):
   * the run starts a new clock segment under the new policy, recorded in the clock and scheduler records
   * and, for each schedule, as a `policy_change` operator decision naming the policy and its digests
   * before and after (written with the schedule's record; docs/evidence-format.md). `true` records the
   * decision by `RAES_OPERATOR`, else `USER@HOST`; `{ operator, note }` names who allowed it and why.
   * Without it, such a reopen is refused (`runtime.participant-autonomous-state-conflict`) before any write.
   */
  readonly allowPolicyChange?: boolean | PolicyChangeAllowance;
  /**
   * Start each participant's execution service at open (default true). With false, a participant
   * without a service record waits `stopped` until `startParticipant` (or `raes control start`).
   */
  readonly startParticipants?: boolean;
}

/** Who allows a policy change and why, as `RuntimeManagerOptions.allowPolicyChange` records it. */
export interface PolicyChangeAllowance {
  /** Who decided (default `RAES_OPERATOR`, else `USER@HOST`); 1 to 256 characters, no control character. */
  readonly operator?: string;
  /** Why ("" when none); at most 4096 characters. */
  readonly note?: string;
}
