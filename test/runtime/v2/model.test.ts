import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { CompiledActivityPolicy } from "../../../src/compiler/index.js";
import { decodePublicSeed, deriveStreamKey } from "../../../src/random/index.js";
import { planDue, segmentStart, settleAttempt, type V2Plan } from "../../../src/runtime/v2/index.js";

const STEP = 10;
const CLASSES = ["target_unavailable", "timeout", "backend_error"] as const;

/** A raw authored policy, as the generator draws it (independent of the compiled shape's code). */
interface RawPolicy {
  readonly work: [number, number][];
  readonly pause: [number, number][];
  readonly minSteps: number;
  readonly spanSteps: number;
  readonly skip: boolean;
  readonly complete: boolean;
  readonly candidates: {
    readonly weight: number;
    readonly deps: number[];
    readonly retry: (typeof CLASSES)[number][];
    readonly maxRetries: number;
    readonly cooldown: number;
  }[];
  readonly maxOccurrences: number;
  readonly maxAttempts: number;
  readonly maxBurst: number;
  readonly stop: boolean;
}

const window = fc
  .tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 30 }))
  .map(([s, len]) => [s * 5, (s + len) * 5]) as fc.Arbitrary<[number, number]>;

const rawPolicy: fc.Arbitrary<RawPolicy> = fc.record({
  work: fc.array(window, { minLength: 1, maxLength: 3 }),
  pause: fc.array(window, { maxLength: 2 }),
  minSteps: fc.integer({ min: 1, max: 4 }),
  spanSteps: fc.integer({ min: 0, max: 4 }),
  skip: fc.boolean(),
  complete: fc.boolean(),
  candidates: fc.array(
    fc.record({
      weight: fc.integer({ min: 1, max: 6 }),
      deps: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }),
      retry: fc.subarray([...CLASSES]),
      maxRetries: fc.integer({ min: 0, max: 3 }),
      cooldown: fc.integer({ min: 0, max: 60 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  maxOccurrences: fc.integer({ min: 1, max: 40 }),
  maxAttempts: fc.integer({ min: 1, max: 60 }),
  maxBurst: fc.integer({ min: 1, max: 4 }),
  stop: fc.boolean(),
});

const id = (i: number) => `cand_${String.fromCharCode(97 + i)}`;

function compiled(raw: RawPolicy): CompiledActivityPolicy {
  const win = ([s, e]: [number, number], i: number, kind: string) => ({
    address: `time.constraint.${kind}-${i}`,
    start: { tick: s, microstep: 0 },
    end: { tick: e, microstep: 0 },
  });
  const byStart = (a: { start: { tick: number } }, b: { start: { tick: number } }) =>
    a.start.tick - b.start.tick;
  return {
    workWindows: raw.work.map((w, i) => win(w, i, "work")).sort(byStart),
    pauseWindows: raw.pause.map((w, i) => win(w, i, "pause")).sort(byStart),
    timingMinimumTicks: raw.minSteps * STEP,
    timingMaximumTicks: (raw.minSteps + raw.spanSteps) * STEP,
    stepTicks: STEP,
    outsideWindowDisposition: raw.skip ? "skip" : "next_opening",
    emptyEligibleDisposition: raw.complete ? "complete" : "wait",
    stochasticControlRef: "control",
    candidates: raw.candidates.map((c, i) => ({
      id: id(i),
      actionContractAddress: "participant.action-contract.a",
      weight: c.weight,
      // Dependencies only on earlier candidates, so the graph is acyclic (as validation requires).
      dependsOn: [...new Set(c.deps.filter((d) => d < i).map(id))],
      retryableFailureClasses: c.retry,
      maxRetries: c.maxRetries,
      cooldownTicks: c.cooldown,
    })),
    maxOccurrences: raw.maxOccurrences,
    maxBurstSize: raw.maxBurst,
  };
}

interface Attempt {
  readonly tick: number;
  readonly candidate: number;
  readonly occurrence: number;
  readonly retry: number;
  readonly succeeded: boolean;
  readonly failureClass: string | undefined;
}

/** Runs the engine over `steps` advances; outcome n comes from `outcomes` (cycled). */
function schedule(raw: RawPolicy, seed: string, outcomes: number[], steps: number): Attempt[] {
  const plan: V2Plan = {
    activity: compiled(raw),
    maxActionAttempts: raw.maxAttempts,
    failurePolicy: raw.stop ? "stop" : "continue",
    stream: {
      controlId: "control",
      profileId: "blake3-xof-participant-v1",
      namespace: "model-test",
      streamKey: deriveStreamKey("blake3-xof-participant-v1", decodePublicSeed(seed)),
      policyAddress: "participant.autonomous-execution.spec",
      participantAddress: "participant.behavior.agent",
    },
  };
  let c = segmentStart(plan.activity, plan.stream, 0, "participant.behavior.agent-autonomous-0", 0);
  const out: Attempt[] = [];
  for (let s = 1; s <= steps; s += 1) {
    const tick = s * STEP;
    for (let guard = 0; guard < 1000; guard += 1) {
      const due = planDue(plan, c, tick);
      if (due.kind === "none") break;
      if (due.kind === "idle") {
        c = due.state;
        break;
      }
      const o = outcomes[out.length % outcomes.length] ?? 0;
      const succeeded = o === 0;
      const failureClass = succeeded ? undefined : CLASSES[(o - 1) % CLASSES.length];
      out.push({
        tick,
        candidate: due.attempt.candidateIndex,
        occurrence: due.state.occurrence_ordinal,
        retry: due.state.current_retry,
        succeeded,
        failureClass,
      });
      c = settleAttempt(plan, due.state, due.attempt, {
        succeeded,
        failureClass,
        protocolFailure: false,
        indeterminate: false,
      });
    }
  }
  return out;
}

/** The independent predicate: what any v2 schedule must satisfy, computed from the raw policy only. */
function violations(raw: RawPolicy, attempts: readonly Attempt[]): string[] {
  const problems: string[] = [];
  const inAny = (tick: number, ws: [number, number][]) => ws.some(([s, e]) => s <= tick && tick < e);
  const lastTerminal = new Map<number, number>();
  const succeeded = new Set<number>();
  const perTick = new Map<number, Set<number>>();
  if (attempts.length > raw.maxAttempts) problems.push(`${attempts.length} attempts > ${raw.maxAttempts}`);
  let prev: Attempt | undefined;
  let stopped = false;
  for (const a of attempts) {
    if (stopped) problems.push(`attempt after failure_policy stop at tick ${a.tick}`);
    if (!inAny(a.tick, raw.work) || inAny(a.tick, raw.pause))
      problems.push(`tick ${a.tick} outside availability`);
    if (a.occurrence >= raw.maxOccurrences)
      problems.push(`occurrence ${a.occurrence} beyond ${raw.maxOccurrences}`);
    const spec = raw.candidates[a.candidate];
    if (!spec) {
      problems.push(`unknown candidate ${a.candidate}`);
      continue;
    }
    if (a.retry === 0) {
      const deps = [...new Set(spec.deps.filter((d) => d < a.candidate))];
      for (const d of deps)
        if (!succeeded.has(d)) problems.push(`candidate ${a.candidate} before dependency ${d}`);
      const last = lastTerminal.get(a.candidate);
      if (last !== undefined && last + spec.cooldown > a.tick)
        problems.push(`candidate ${a.candidate} at ${a.tick} inside cooldown from ${last}`);
      const occurrences = perTick.get(a.tick) ?? new Set<number>();
      occurrences.add(a.occurrence);
      perTick.set(a.tick, occurrences);
      if (occurrences.size > raw.maxBurst) problems.push(`burst of ${occurrences.size} at ${a.tick}`);
    } else {
      const ok =
        prev !== undefined &&
        !prev.succeeded &&
        prev.candidate === a.candidate &&
        prev.occurrence === a.occurrence &&
        prev.retry === a.retry - 1 &&
        prev.tick === a.tick &&
        prev.failureClass !== undefined &&
        spec.retry.includes(prev.failureClass as (typeof CLASSES)[number]) &&
        a.retry <= spec.maxRetries;
      if (!ok) problems.push(`unjustified retry ${a.retry} of occurrence ${a.occurrence} at ${a.tick}`);
    }
    const retriedNext =
      !a.succeeded &&
      a.failureClass !== undefined &&
      spec.retry.includes(a.failureClass as (typeof CLASSES)[number]) &&
      a.retry < spec.maxRetries;
    if (!retriedNext || a.succeeded) {
      lastTerminal.set(a.candidate, a.tick);
      if (a.succeeded) succeeded.add(a.candidate);
      if (!a.succeeded && raw.stop && !retriedNext) stopped = true;
    }
    prev = a;
  }
  return problems;
}

describe("v2 schedules respect the policy (model-based, independent predicate)", () => {
  it("windows, cooldowns, dependencies, retry and burst bounds hold for random policies and seeds", () => {
    let total = 0;
    let retries = 0;
    fc.assert(
      fc.property(
        rawPolicy,
        fc.stringMatching(/^[0-9a-f]{64}$/),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 12 }),
        (raw, seed, outcomes) => {
          const attempts = schedule(raw, seed, outcomes, 80);
          total += attempts.length;
          retries += attempts.filter((a) => a.retry > 0).length;
          assert.deepEqual(violations(raw, attempts), []);
        },
      ),
      { numRuns: 150 },
    );
    // Not vacuous: the generated policies do run, and do retry.
    assert.ok(total > 150 && retries > 0, `${total} attempts, ${retries} retries`);
  });

  it("the predicate bites: it rejects a schedule that breaks a cooldown", () => {
    const raw: RawPolicy = {
      work: [[0, 500]],
      pause: [],
      minSteps: 1,
      spanSteps: 0,
      skip: false,
      complete: false,
      candidates: [{ weight: 1, deps: [], retry: [], maxRetries: 0, cooldown: 50 }],
      maxOccurrences: 10,
      maxAttempts: 10,
      maxBurst: 1,
      stop: false,
    };
    const a = { candidate: 0, retry: 0, succeeded: true, failureClass: undefined };
    assert.notDeepEqual(
      violations(raw, [
        { ...a, tick: 10, occurrence: 0 },
        { ...a, tick: 20, occurrence: 1 },
      ]),
      [],
    );
  });
});
