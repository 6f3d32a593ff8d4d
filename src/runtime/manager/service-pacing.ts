import { trace } from "@opentelemetry/api";
import type { RuntimeModel } from "../../compiler/index.js";
import { pacingDeviationRef, TRACER_NAME } from "../../records/index.js";
import type { ControlPlaneStore } from "../../store/index.js";
import { RuntimeError, RuntimeErrorCode } from "../errors.js";
import type { Pacing } from "./paced-run.js";
import { type WallPacing, wallPacing } from "./pacing.js";

/** RAES's service health of a policy's execution service as pacing leaves it. */
export type PacingHealth = "healthy" | "degraded";

/**
 * The wall pacing the SDL declares for the policy clocks, and the pacing deviations recorded against each
 * participant's execution service. A step that starts later than the progression's drift bound loses
 * pacing: the service of every participant scheduled under a policy on the clock is marked `degraded`,
 * with RAES's evidence ref `evidence:<policy>:pacing-loss:<clock>:generation-<g>` (one per generation, as
 * RAES keeps them), stored (schema step 20) so the status view and the timeline of any process read it,
 * on the invocation spans and in a `pacing_loss` span (docs/guide/operations.md#real-time).
 */
export class ServicePacing {
  readonly #model: RuntimeModel;
  readonly #wall: readonly WallPacing[];
  /** Policies known degraded: loaded from the store at open, then as this process loses pacing. */
  readonly #degraded = new Set<string>();
  readonly #logged = new Set<string>();
  readonly #log: (line: string) => void;

  constructor(model: RuntimeModel, log: (line: string) => void) {
    this.#model = model;
    this.#wall = wallPacing(model);
    this.#log = log;
  }

  /** Reads the deviations already stored (by this process before, or by another), so spans show them. */
  async load(store: ControlPlaneStore): Promise<void> {
    for (const deviation of await store.listPacingDeviations()) this.#degraded.add(deviation.policyAddress);
  }

  /** The policy's health: `degraded` once pacing was lost under it (as stored at open, or since). */
  health = (policyAddress: string): PacingHealth =>
    this.#degraded.has(policyAddress) ? "degraded" : "healthy";

  /**
   * The pacing of a run: `tickMs` when given, else the SDL's (one tick per tick period ÷ pacing_ratio),
   * which every policy clock must declare alike (`runtime.pacing-undeclared`, `runtime.pacing-ambiguous`).
   */
  pacing(tickMs: number | undefined): Pacing {
    if (tickMs !== undefined) return { tickMs, source: "tick_ms" };
    const clocks = [
      ...new Set(Object.values(this.#model.autonomousPolicies).map((p) => p.clockAddress)),
    ].sort();
    const unpaced = clocks.filter((c) => !this.#wall.some((w) => w.clockAddress === c));
    if (clocks.length === 0 || unpaced.length > 0)
      throw new RuntimeError(
        RuntimeErrorCode.pacing_undeclared,
        `no wall pacing is declared for ${unpaced.join(", ") || "any policy clock"}: real time needs a real_time or dilated progression on a runtime clock, else give --tick-ms (tickMs)`,
      );
    const rates = new Set(this.#wall.map((w) => w.tickMs));
    if (rates.size > 1)
      throw new RuntimeError(
        RuntimeErrorCode.pacing_ambiguous,
        `the policy clocks declare different wall pacing (${this.#wall.map((w) => `${w.clockAddress}: ${w.tickMs} ms per tick`).join(", ")}); give --tick-ms (tickMs)`,
      );
    const [first] = this.#wall;
    return {
      tickMs: first?.tickMs ?? 0,
      source: "clock",
      boundMs: Math.min(...this.#wall.map((w) => w.boundMs)),
    };
  }

  /**
   * Records a loss of pacing: the service of each participant of every policy on a paced clock is marked
   * `degraded` in `generation`'s ref, stored once per participant and ref (the first late step's lateness).
   */
  async lost(
    store: ControlPlaneStore,
    latenessMs: number,
    generationOf: (clockAddress: string) => number,
    at: string,
  ): Promise<void> {
    const tracer = trace.getTracer(TRACER_NAME);
    for (const wall of this.#wall) {
      const generation = generationOf(wall.clockAddress);
      for (const policy of wall.policyAddresses) {
        const ref = pacingDeviationRef(policy, wall.clockAddress, generation);
        this.#degraded.add(policy);
        for (const participantAddress of this.#model.autonomousPolicies[policy]?.participantAddresses ?? [])
          await store.recordPacingDeviation({
            participantAddress,
            policyAddress: policy,
            clockAddress: wall.clockAddress,
            generation,
            ref,
            latenessMs,
            boundMs: wall.boundMs,
            recordedAt: at,
          });
        if (!this.#logged.has(ref)) {
          this.#logged.add(ref);
          this.#log(
            `pacing lost on ${wall.clockAddress}: a step started ${latenessMs.toFixed(0)} ms late (bound ${wall.boundMs} ms); ${policy} is degraded`,
          );
        }
        tracer
          .startSpan(`pacing_loss ${wall.clockAddress}`, {
            attributes: {
              "raes.clock.address": wall.clockAddress,
              "raes.policy.address": policy,
              "raes.service.health": "degraded",
              "raes.pacing.lateness_ms": latenessMs,
              "raes.pacing.bound_ms": wall.boundMs,
              "raes.pacing.deviation_ref": ref,
            },
          })
          .end();
      }
    }
  }
}

/**
 * The pacing a real-time run of `model` keeps: `tickMs` when given, else the SDL clock's; throws
 * `runtime.pacing-undeclared` or `runtime.pacing-ambiguous` as `RuntimeManager.run` would, so a caller can
 * check before it opens (and runs the start tick).
 */
export function realTimePacing(model: RuntimeModel, tickMs?: number): Pacing {
  return new ServicePacing(model, () => undefined).pacing(tickMs);
}
