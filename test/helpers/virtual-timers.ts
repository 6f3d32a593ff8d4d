import type { RuntimeTimers } from "../../src/index.js";

/**
 * Timers on a virtual clock: time moves only when a timer is due (it jumps there once the event
 * loop is idle) or when the test calls `advance`. Deterministic pacing without real waits.
 */
export class VirtualTimers implements RuntimeTimers {
  #now = 0;
  #next = 1;
  readonly #pending = new Map<number, { readonly at: number; readonly fn: () => void }>();

  now(): number {
    return this.#now;
  }

  /** Moves the clock forward, as work that takes `ms` would. */
  advance(ms: number): void {
    this.#now += ms;
  }

  after(ms: number, fn: () => void): () => void {
    const id = this.#next++;
    this.#pending.set(id, { at: this.#now + Math.max(0, ms), fn });
    setImmediate(() => this.#fire());
    return () => this.#pending.delete(id);
  }

  #fire(): void {
    const first = [...this.#pending].sort(([, a], [, b]) => a.at - b.at)[0];
    if (!first) return;
    const [id, timer] = first;
    this.#pending.delete(id);
    this.#now = Math.max(this.#now, timer.at);
    timer.fn();
  }
}
