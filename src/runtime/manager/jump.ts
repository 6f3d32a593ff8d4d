import type { RuntimeModel } from "../../compiler/index.js";
import type { ClockRecord } from "../../store/index.js";
import { RuntimeError, RuntimeErrorCode } from "../errors.js";
import type { AutonomousExecutionState } from "../views/index.js";

/**
 * Why RAES refuses a jump of `clockAddress` to `tick`, checked as RAES checks it, in RAES's order (ADR-090;
 * recorded in test/fixtures/raes-views/jump.json). A clock without `supports_jump` refuses every jump
 * (`runtime.backend-contract-invalid`). A forward jump past a running schedule's next cadence tick would
 * skip it (`runtime.participant-autonomous-cadence-skipped`). Any other jump starts a new segment, and a
 * schedule on the clock follows a clock into a new segment only through a reset, so RAES fails its
 * readback (`runtime.participant-autonomous-readback-invalid`) and keeps the clock where it was. raes-ts
 * refuses before any write or harness call; RAES has already run the due attempt when its readback fails.
 */
export function jumpRefusal(
  model: RuntimeModel,
  clockAddress: string,
  tick: number,
  clock: ClockRecord | undefined,
  states: readonly AutonomousExecutionState[],
): RuntimeError {
  if (!Number.isSafeInteger(tick) || tick < 0)
    return new RuntimeError(RuntimeErrorCode.clock_tick_invalid, "a jump's tick is a whole number ≥ 0");
  const compiled = model.clocks[clockAddress];
  const governed = Object.values(model.autonomousPolicies).some((p) => p.clockAddress === clockAddress);
  if (!compiled || !governed || !clock)
    return new RuntimeError(
      RuntimeErrorCode.clock_unknown,
      `no autonomous policy runs on clock ${clockAddress}`,
    );
  if (!compiled.supportsJump)
    return new RuntimeError(
      RuntimeErrorCode.clock_jump_unsupported,
      `clock ${clockAddress} does not support jumps (supports_jump is false)`,
    );
  const current = clock.tick;
  if (tick > current) {
    for (const state of states) {
      if (state.clock_address !== clockAddress || state.lifecycle_state !== "running") continue;
      const next = state.next_tick;
      if (next < current || (current < next && next < tick))
        return new RuntimeError(
          RuntimeErrorCode.cadence_skipped,
          `Clock transition to tick ${tick} would skip governed participant cadence tick ${next}; advance to the cadence boundary first.`,
        );
    }
  }
  return new RuntimeError(
    RuntimeErrorCode.autonomous_readback_invalid,
    `a jump of ${clockAddress} starts segment ${clock.segment + 1}, which its schedules (segment ${clock.segment}) follow only through a reset; the clock stays at segment ${clock.segment}, tick ${current}`,
  );
}
