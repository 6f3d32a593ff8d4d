import type { RuntimeModel } from "../compiler/index.js";
import type { ExecutionOfferIndex } from "../manifest/index.js";
import type { ParticipantToolActionRefusal, ToolActionLimits } from "../port/index.js";
import type { ControlPlaneStore, Fence } from "../store/index.js";
import type { LateOutcome } from "./deadline.js";
import type { InvocationContext } from "./invocation.js";
import { outerTimeouts } from "./outer-timeout.js";
import { type RuntimeTimers, systemTimers } from "./timers.js";
import type { ParticipantRuntime } from "./types.js";

/** What the manager hands every invocation. */
export interface ContextInput {
  readonly model: RuntimeModel;
  readonly runtime: ParticipantRuntime;
  readonly store: ControlPlaneStore;
  readonly limits: ToolActionLimits | undefined;
  readonly now: () => string;
  readonly onRefusal?: (refusal: ParticipantToolActionRefusal) => void;
  readonly log: (line: string) => void;
  /** The manifest's offers: the covering one's timeout_seconds bounds each outer invocation. */
  readonly offers: ExecutionOfferIndex;
  readonly timers?: RuntimeTimers;
  readonly onLate?: (invocationId: string, how: LateOutcome) => void;
}

/** The invocation context: the model's evidence and failure-class lookups, the store and the clock. */
export function buildContext(input: ContextInput): InvocationContext {
  const evidence = new Map<string, ReadonlySet<string>>();
  for (const b of Object.values(input.model.observationBoundaries))
    evidence.set(b.address, new Set(b.outcomeEvidenceRefs));
  const classes = new Map<string, ReadonlySet<string>>();
  for (const c of Object.values(input.model.actionContracts))
    classes.set(c.address, new Set(c.failureClasses));
  return {
    store: input.store,
    runtime: input.runtime,
    model: input.model,
    limits: input.limits,
    now: input.now,
    fence: undefined as Fence | undefined,
    outcomeEvidence: (address) => evidence.get(address),
    failureClasses: (address) => classes.get(address),
    log: input.log,
    ...(input.onRefusal ? { onRefusal: input.onRefusal } : {}),
    timers: input.timers ?? systemTimers,
    outerTimeoutMs: outerTimeouts(input.offers),
    ...(input.onLate ? { onLate: input.onLate } : {}),
  };
}

/** Epoch milliseconds with a fractional part, so timestamps can carry microseconds. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/** ISO-8601 UTC with microseconds (as RAES writes), from epoch milliseconds that may have a fraction. */
export function isoMicros(ms: number): string {
  const whole = Math.floor(ms);
  // To the nearest microsecond: at today's epoch a double holds a millisecond fraction only to ±0.12 µs.
  const micros = Math.min(999, Math.round((ms - whole) * 1000));
  const second = Math.floor(whole / 1000);
  // Every record of a step is stamped within the same second: its date and time are formatted once.
  if (second !== formatted.second) {
    formatted.second = second;
    formatted.prefix = new Date(second * 1000).toISOString().slice(0, -4);
  }
  return `${formatted.prefix}${String(whole - second * 1000).padStart(3, "0")}${String(micros).padStart(3, "0")}Z`;
}

const formatted = { second: Number.NaN, prefix: "" };

/** A microsecond ISO-8601 clock that formats each distinct reading once; several records share a reading. */
export function isoClock(nowMs: () => number): () => string {
  let last = Number.NaN;
  let lastIso = "";
  return () => {
    const ms = nowMs();
    if (ms !== last) {
      last = ms;
      lastIso = isoMicros(ms);
    }
    return lastIso;
  };
}
