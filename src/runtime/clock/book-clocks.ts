import {
  applyClockChange,
  type ClockChange,
  type ClockRecord,
  type ControlPlaneStore,
} from "../../store/index.js";
import { StepClock } from "./step-clock.js";

/** Where the shared clock stands for one invocation. */
export interface InvocationClock {
  readonly clockAddress: string;
  readonly segment: number;
  readonly tick: number;
  readonly generation: number;
  /** The participant's current episode, when its execution service names one (else derived from the segment). */
  readonly episodeId?: string;
}

/** What the clocks need of a schedule: the clock it runs on and how far one of its steps moves it. */
export interface ClockedSchedule {
  readonly policy: { readonly clockAddress: string };
  readonly progression: { readonly stepTicks: number };
}

/**
 * The change one step asks of a shared clock: one step past the clock this process last saw, and
 * no further. Every process sharing a store steps the same clocks; an advance by a step from each
 * would move scenario time once per process per step. Asking for "at least one step past what I
 * saw" moves it once: a process that saw an older clock (another stepped first) asks for a tick
 * already reached and moves nothing, yet runs the ticks the clock passed. A paused clock or one in
 * another segment or generation (a reset elsewhere) ignores the target, and the answer is the
 * clock the next step starts from.
 */
function clockStep(seen: ClockRecord | undefined, stepTicks: number): Omit<ClockChange, "at"> {
  if (!seen) return { advanceTicks: stepTicks };
  return { advanceTo: { segment: seen.segment, generation: seen.generation, tick: seen.tick + stepTicks } };
}

/** The shared clocks as this process last saw them, and how a step moves them (see StepClock). */
export class BookClocks {
  readonly #store: ControlPlaneStore;
  readonly #now: () => string;
  readonly #seen = new Map<string, ClockRecord>();
  readonly #step: StepClock;
  /** The clock the held step was predicted from. */
  #before: ClockRecord | undefined;

  constructor(store: ControlPlaneStore, now: () => string) {
    this.#store = store;
    this.#now = now;
    this.#step = new StepClock(store, (clock) => this.#seen.set(clock.clockAddress, clock));
  }

  /** The store a step's writes go through: none commits before the step's clock change. */
  get store(): ControlPlaneStore {
    return this.#step.store;
  }

  /** The clock at `address` as last seen (or as the held step expects it). */
  get(address: string): ClockRecord | undefined {
    return this.#seen.get(address);
  }

  /** True when any clock was paused when last seen. */
  paused(): boolean {
    return [...this.#seen.values()].some((c) => c.paused);
  }

  /** Reads the clock at `address`, creating it at tick 0 when absent. */
  async load(address: string): Promise<void> {
    if (!this.#seen.has(address)) await this.#change(address, {});
  }

  /** Pauses or resumes every clock. */
  async setPaused(paused: boolean): Promise<void> {
    for (const address of [...this.#seen.keys()]) await this.#change(address, { paused });
  }

  /** Moves every clock to a new segment at tick 0 with the next generation. */
  async reset(): Promise<void> {
    for (const address of [...this.#seen.keys()]) await this.#change(address, { reset: true });
  }

  /**
   * Takes this process's next step of every clock (each its specs' step). With one running clock
   * the step's clock is predicted from the one last seen and its change held until the step's first
   * write commits it; with several clocks, or a paused one, the change is committed at once.
   */
  async step(specs: readonly ClockedSchedule[]): Promise<void> {
    const stepTicks = new Map<string, number>();
    for (const s of specs)
      if (!stepTicks.has(s.policy.clockAddress))
        stepTicks.set(s.policy.clockAddress, s.progression.stepTicks);
    const [only, ...others] = stepTicks;
    const seen = only && others.length === 0 ? this.#seen.get(only[0]) : undefined;
    if (!only || !seen || seen.paused) {
      for (const [address, ticks] of stepTicks)
        await this.#change(address, clockStep(this.#seen.get(address), ticks));
      return;
    }
    const step = clockStep(seen, only[1]);
    const change = { ...step, at: this.#now() };
    const expected = applyClockChange(seen, change);
    this.#before = seen;
    this.#seen.set(expected.clockAddress, expected);
    this.#step.hold({ fold: { change, expected }, commitAlone: () => this.#change(only[0], step) });
  }

  /** True when the held change met a clock moved elsewhere: the step wrote nothing and the clock as it stands is recorded. */
  get moved(): boolean {
    return this.#step.moved;
  }

  /** Forgets the held step, so the step's work runs again from the recorded clock. */
  again(): void {
    this.#step.clear();
  }

  /** Ends a step: commits its change alone if no write did; `StepClockMovedError` when the clock moved elsewhere. */
  async finish(): Promise<void> {
    await this.#step.settle();
    this.#step.clear();
  }

  /** Ends a failed step: its change is still committed (as it was before the step ran), if it can be. */
  async abandon(): Promise<void> {
    await this.#step.settle().catch(() => undefined);
    // Never committed as far as we know: the next step asks again from the clock before this one (a
    // tick already reached moves nothing, should it have committed after all). Going on from the
    // prediction would move the clock two steps at once and skip the tick in between.
    if (this.#step.held && this.#before) this.#seen.set(this.#before.clockAddress, this.#before);
    this.#step.clear();
  }

  /** Where the shared clock stands for an invocation of this schedule at this tick. */
  clockFor(spec: ClockedSchedule, tick: number): InvocationClock {
    const clock = this.#seen.get(spec.policy.clockAddress);
    return {
      clockAddress: spec.policy.clockAddress,
      segment: clock?.segment ?? 0,
      tick,
      generation: clock?.generation ?? 1,
    };
  }

  async #change(address: string, change: Omit<ClockChange, "at">): Promise<ClockRecord> {
    const at = this.#now();
    const fresh = { segment: 0, tick: 0, generation: 1, paused: false };
    const initial: ClockRecord = { clockAddress: address, ...fresh, updatedAt: at };
    const clock = await this.#store.updateClock(initial, { ...change, at });
    this.#seen.set(address, clock);
    return clock;
  }
}
