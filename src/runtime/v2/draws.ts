import type { CompiledActivityPolicy, CompiledTimePoint, CompiledWindow } from "../../compiler/index.js";
import {
  drawBoundedInteger,
  type ParticipantStreamAddress,
  RandomStreamError,
  RandomStreamErrorCode,
} from "../../random/index.js";

/** RAES's draw purpose for participant activity and its rejection budget. */
const DRAW_PURPOSE = "agent-policy";
const MAX_REJECTION_ATTEMPTS = 32;

/** Local coordinates of the three occurrence draws. */
export const DrawCoordinate = {
  /** The timing interval, in steps (or ticks on an unstepped clock). */
  timing: 0,
  /** The weighted candidate selection. */
  selection: 1,
  /** The size of the burst that starts at this occurrence. */
  burst: 2,
} as const;
/** A local coordinate of an occurrence draw. */
export type DrawCoordinate = (typeof DrawCoordinate)[keyof typeof DrawCoordinate];

/** One participant's resolved stream: the derived key stays in memory and is never written anywhere. */
export interface V2Stream {
  readonly controlId: string;
  readonly profileId: string;
  readonly namespace: string;
  readonly streamKey: Uint8Array;
  /** The control's one-way fingerprint (`controlFingerprint`), when resolved from a run's control. */
  readonly fingerprint?: string;
  readonly policyAddress: string;
  readonly participantAddress: string;
}

/** The safe, public address of one draw (what provenance may show). */
export function drawAddress(
  stream: V2Stream,
  segment: number,
  occurrence: number,
  coordinate: DrawCoordinate,
): ParticipantStreamAddress {
  return {
    namespace: stream.namespace,
    policy_address: stream.policyAddress,
    participant_address: stream.participantAddress,
    time_segment: segment,
    occurrence_ordinal: occurrence,
    draw_purpose: DRAW_PURPOSE,
    local_coordinate: coordinate,
  };
}

const encoder = new TextEncoder();
const json = JSON.stringify;

/** The address's JCS bytes, written in sorted key order directly (the generic form is tested equal). */
function addressBytes(a: ParticipantStreamAddress): Uint8Array {
  return encoder.encode(
    `{"draw_purpose":${json(a.draw_purpose)},"local_coordinate":${a.local_coordinate},"namespace":${json(a.namespace)},"occurrence_ordinal":${a.occurrence_ordinal},"participant_address":${json(a.participant_address)},"policy_address":${json(a.policy_address)},"time_segment":${a.time_segment}}`,
  );
}

/** One bounded draw at an occurrence-local coordinate; exhaustion fails closed as in RAES. */
export function drawV2Integer(
  stream: V2Stream,
  segment: number,
  occurrence: number,
  coordinate: DrawCoordinate,
  minimum: number,
  maximum: number,
): number {
  const address = drawAddress(stream, segment, occurrence, coordinate);
  const draw = drawBoundedInteger({
    profileId: stream.profileId,
    streamKey: stream.streamKey,
    address,
    addressBytes: addressBytes(address),
    minimum,
    maximum,
    maxRejectionAttempts: MAX_REJECTION_ATTEMPTS,
  });
  if (draw.value === undefined)
    throw new RandomStreamError(
      RandomStreamErrorCode.rejection_exhausted,
      "participant activity draw exhausted",
    );
  return draw.value;
}

/** The generic canonical bytes of the same address, for the equality test of the fast path. */
export const v2AddressBytes = addressBytes;

const before = (a: CompiledTimePoint, tick: number) => a.tick < tick || (a.tick === tick && a.microstep <= 0);
const after = (end: CompiledTimePoint, tick: number) =>
  tick < end.tick || (tick === end.tick && end.microstep > 0);
const inside = (w: CompiledWindow, tick: number) => before(w.start, tick) && after(w.end, tick);

/** Half-open work-window union minus pause-window union, at microstep 0 of the tick. */
export function tickIsEligible(activity: CompiledActivityPolicy, tick: number): boolean {
  return (
    activity.workWindows.some((w) => inside(w, tick)) && !activity.pauseWindows.some((w) => inside(w, tick))
  );
}

/** One timing draw and its disposition; `tick` is undefined when no eligible tick follows. */
export interface TimingSelection {
  readonly tick: number | undefined;
  readonly disposition: "drawn" | "next_opening";
}

/** Draws the next due tick from `currentTick` and applies the authored outside-window disposition. */
export function nextTiming(
  activity: CompiledActivityPolicy,
  stream: V2Stream,
  segment: number,
  occurrence: number,
  currentTick: number,
): TimingSelection {
  const step = activity.stepTicks;
  const units = (ticks: number) => (step === undefined ? ticks : Math.floor(ticks / step));
  const drawn = drawV2Integer(
    stream,
    segment,
    occurrence,
    DrawCoordinate.timing,
    units(activity.timingMinimumTicks),
    units(activity.timingMaximumTicks),
  );
  const candidate = currentTick + (step === undefined ? drawn : drawn * step);
  if (tickIsEligible(activity, candidate)) return { tick: candidate, disposition: "drawn" };
  // RAES reports `drawn` for a skipped path: nothing was re-timed, the path just ends.
  if (activity.outsideWindowDisposition === "skip") return { tick: undefined, disposition: "drawn" };
  return { tick: nextOpening(activity, candidate), disposition: "next_opening" };
}

function aligned(tick: number, step: number | undefined): number {
  return step !== undefined && tick % step !== 0 ? tick + step - (tick % step) : tick;
}

/** The first step-aligned eligible tick at or after `candidate`, searching work windows in order. */
function nextOpening(activity: CompiledActivityPolicy, candidate: number): number | undefined {
  const step = activity.stepTicks;
  for (const work of activity.workWindows) {
    const firstTick = work.start.tick + (work.start.microstep > 0 ? 1 : 0);
    let tick = aligned(Math.max(candidate, firstTick), step);
    while (after(work.end, tick)) {
      if (tickIsEligible(activity, tick)) return tick;
      let resume = tick + 1;
      let inPause = false;
      for (const pause of activity.pauseWindows) {
        if (!inside(pause, tick)) continue;
        const end = pause.end.tick + (pause.end.microstep > 0 ? 1 : 0);
        resume = inPause ? Math.max(resume, end) : end;
        inPause = true;
      }
      tick = aligned(resume, step);
    }
  }
  return undefined;
}

/** Picks the first canonical prefix interval containing a weighted draw over the eligible candidates. */
export function selectCandidate(
  activity: CompiledActivityPolicy,
  stream: V2Stream,
  segment: number,
  occurrence: number,
  eligible: readonly number[],
): number | undefined {
  if (eligible.length === 0) return undefined;
  let total = 0;
  for (const i of eligible) total += activity.candidates[i]?.weight ?? 0;
  const r = drawV2Integer(stream, segment, occurrence, DrawCoordinate.selection, 0, total - 1);
  let cursor = 0;
  for (const i of eligible) {
    cursor += activity.candidates[i]?.weight ?? 0;
    if (r < cursor) return i;
  }
  return undefined;
}
