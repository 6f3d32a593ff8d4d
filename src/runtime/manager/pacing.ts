import type { RuntimeModel } from "../../compiler/index.js";

/** How one policy clock is paced against wall time, from its SDL declarations (RAES's wall driver's rate). */
export interface WallPacing {
  readonly clockAddress: string;
  /** The policies on this clock, which a pacing loss marks `degraded`. */
  readonly policyAddresses: readonly string[];
  /** tick period ÷ pacing_ratio, exact: [numerator, denominator] seconds per tick, reduced. */
  readonly secondsPerTick: readonly [number, number];
  /** The same in milliseconds, as the pacing loop waits. */
  readonly tickMs: number;
  /** The progression policy's `drift_bound_ticks`, null when it declares none. */
  readonly driftBoundTicks: number | null;
  /** How late a step may start before pacing is lost: the drift bound (one tick when undeclared), in ms. */
  readonly boundMs: number;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The wall pacing of every policy clock whose progression is `real_time` or `dilated` and whose clock has
 * runtime authority, as RAES's wall driver derives it: seconds per tick = the time domain's tick period ÷
 * the progression's pacing_ratio. A `stepped` clock has none: RAES does not drive it against wall time.
 *
 * @example
 * // tick_period_seconds 1/10, dilated with pacing_ratio 2/1: 1/20 s (50 ms) per tick
 * wallPacing(model)[0]?.secondsPerTick; // [1, 20]
 */
export function wallPacing(model: RuntimeModel): WallPacing[] {
  const byClock = new Map<string, string[]>();
  for (const policy of Object.values(model.autonomousPolicies)) {
    const list = byClock.get(policy.clockAddress) ?? [];
    list.push(policy.address);
    byClock.set(policy.clockAddress, list);
  }
  const out: WallPacing[] = [];
  for (const progression of Object.values(model.progressionPolicies)) {
    const policies = byClock.get(progression.clockAddress);
    if (!policies) continue;
    if (progression.advancementMode !== "real_time" && progression.advancementMode !== "dilated") continue;
    const clock = model.clocks[progression.clockAddress];
    if (clock?.authorityKind !== "runtime") continue;
    const domain = model.timeDomains[clock.timeDomainAddress];
    if (!domain) continue;
    const n = domain.tickPeriodNumerator * progression.pacingDenominator;
    const d = domain.tickPeriodDenominator * progression.pacingNumerator;
    const g = gcd(n, d);
    const tickMs = (1000 * n) / d;
    const drift = progression.driftBoundTicks;
    out.push({
      clockAddress: progression.clockAddress,
      policyAddresses: [...policies].sort(),
      secondsPerTick: [n / g, d / g],
      tickMs,
      driftBoundTicks: drift,
      boundMs: (drift ?? 1) * tickMs,
    });
  }
  return out.sort((a, b) => (a.clockAddress < b.clockAddress ? -1 : a.clockAddress > b.clockAddress ? 1 : 0));
}
