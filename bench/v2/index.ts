/**
 * `npm run bench -- v2`: the v2 activity scheduler.
 *
 * 1. Scheduling cost per attempt (the pure engine: eligibility, draws, selection, settlement) in a
 *    run of 10 000 attempts over a run of 100, measured in alternation so both see the same load:
 *    the continuation is bounded by the candidate set, so the ratio should stay near 1 (≤ 1.2).
 * 2. Bounded draws per second (address, canonical bytes, keyed XOF, rejection transform) against a
 *    bare BLAKE3 floor in the same run: one keyed hash of the same canonical bytes with 32 bytes of
 *    XOF output (≥ 0.5× the floor's rate).
 */
import { blake3 } from "@noble/hashes/blake3.js";
import type { CompiledActivityPolicy } from "../../src/compiler/index.js";
import { decodePublicSeed, deriveStreamKey } from "../../src/random/index.js";
import {
  drawAddress,
  drawV2Integer,
  planDue,
  segmentStart,
  settleAttempt,
  type V2Plan,
  type V2Stream,
  v2AddressBytes,
} from "../../src/runtime/v2/index.js";
import { alternate, asFloorRow, callsBlock, fmt, printFloorTable, printTable } from "../shared/index.js";

const STEP = 10;

function plan(attempts: number): V2Plan {
  const activity: CompiledActivityPolicy = {
    workWindows: [
      {
        address: "time.constraint.work",
        start: { tick: 0, microstep: 0 },
        end: { tick: 1e12, microstep: 0 },
      },
    ],
    pauseWindows: [
      {
        address: "time.constraint.pause",
        start: { tick: 500, microstep: 0 },
        end: { tick: 700, microstep: 0 },
      },
    ],
    timingMinimumTicks: 10,
    timingMaximumTicks: 40,
    stepTicks: STEP,
    outsideWindowDisposition: "next_opening",
    emptyEligibleDisposition: "wait",
    stochasticControlRef: "control",
    candidates: ["check_status", "follow_up", "portal_login"].map((id, i) => ({
      id,
      actionContractAddress: "participant.action-contract.probe-customer-portal-login",
      weight: 3 - i,
      dependsOn: id === "follow_up" ? ["portal_login"] : [],
      retryableFailureClasses: ["target_unavailable"],
      maxRetries: i,
      cooldownTicks: 10 * i,
    })),
    maxOccurrences: attempts,
    maxBurstSize: 3,
  };
  return { activity, maxActionAttempts: attempts, failurePolicy: "continue", stream: stream() };
}

function stream(): V2Stream {
  return {
    controlId: "control",
    profileId: "blake3-xof-participant-v1",
    namespace: "bench",
    streamKey: deriveStreamKey("blake3-xof-participant-v1", decodePublicSeed("42".repeat(32))),
    policyAddress: "participant.autonomous-execution.participant-behavior",
    participantAddress: "participant.behavior.participant-agent",
  };
}

/** Runs a whole schedule of `n` attempts (every third fails retryably); returns ms per attempt. */
function run(n: number): number {
  const p = plan(n);
  let c = segmentStart(p.activity, p.stream, 0, "participant.behavior.participant-agent-autonomous-0", 0);
  let attempts = 0;
  const start = performance.now();
  for (let tick = STEP; attempts < n; tick += STEP) {
    for (;;) {
      const due = planDue(p, c, tick);
      if (due.kind === "none") break;
      if (due.kind === "idle") {
        c = due.state;
        break;
      }
      attempts += 1;
      const fail = attempts % 3 === 0;
      c = settleAttempt(p, due.state, due.attempt, {
        succeeded: !fail,
        failureClass: fail ? "target_unavailable" : undefined,
        protocolFailure: false,
        indeterminate: false,
      });
    }
    if (c.lifecycle_state !== "running") break;
  }
  if (attempts !== n) throw new Error(`the schedule made ${attempts} attempts, not ${n}`);
  return (performance.now() - start) / n;
}

/** Runs the v2 bench and prints both tables. */
export async function runV2Bench(argv: readonly string[] = []): Promise<void> {
  const quick = argv.includes("--quick");
  const rounds = quick ? 3 : 9;
  // One block: one run of 10 000 attempts; the other: as many attempts in 100 runs of 100, alternated.
  const largeBlock = () => ({ ms: run(10_000) * 10_000, units: 10_000 });
  const smallBlock = () => {
    let ms = 0;
    for (let i = 0; i < 100; i += 1) ms += run(100) * 100;
    return { ms, units: 10_000 };
  };
  const engine = await alternate(largeBlock, smallBlock, { blocks: rounds, warmup: 1 });
  const ratio = engine.ratio;
  printTable(
    `v2 scheduling cost per attempt (engine, median of ${rounds} alternating blocks after a warm-up of each)`,
    ["attempts per run", "µs per attempt", "ratio to 10²", "bound"],
    [
      ["100", fmt(engine.floorMs * 1000), "1.00", ""],
      ["10 000", fmt(engine.realMs * 1000), fmt(ratio), ratio <= 1.2 ? "≤ 1.2 ok" : "> 1.2 FAIL"],
    ],
  );

  const s = stream();
  let occurrence = 0;
  const batch = 1000;
  const fixed = v2AddressBytes(drawAddress(s, 0, 123456, 1));
  const drawsAndFloor = await alternate(
    callsBlock(() => {
      for (let i = 0; i < batch; i += 1) drawV2Integer(s, 0, occurrence++, 1, 0, 5);
    }, 10),
    callsBlock(() => {
      for (let i = 0; i < batch; i += 1) blake3.create({ key: s.streamKey }).update(fixed).xof(32);
    }, 10),
    { blocks: quick ? 7 : 21, warmup: 2 },
  );
  const { measurement: draws, floor } = asFloorRow(
    "bounded draws (address + JCS + keyed XOF + rejection)",
    "bare BLAKE3 keyed hash, 32-byte XOF",
    drawsAndFloor,
  );
  const rate = (m: { medianMs: number }) => (batch / m.medianMs) * 1000;
  const versus = rate(draws) / rate(floor);
  printFloorTable(
    "v2 draws per second vs the bare BLAKE3 XOF floor (median of alternating blocks)",
    [
      {
        measurement: draws,
        floor,
        extra: [
          fmt(rate(draws), 0),
          fmt(rate(floor), 0),
          fmt(versus),
          versus >= 0.5 ? "≥ 0.5 ok" : "< 0.5 FAIL",
        ],
      },
    ],
    ["draws/s", "floor/s", "rate ratio", "bound"],
  );
}
