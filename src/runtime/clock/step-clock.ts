import {
  type ClockFold,
  ClockMovedError,
  type ClockRecord,
  type ControlPlaneStore,
  STORE_DATA_WRITES,
  sameClock,
} from "../../store/index.js";

/** A step's clock change, not yet committed: what it is expected to yield, and how to commit it alone. */
export interface PendingClock {
  readonly fold: ClockFold;
  /** Commits the change in a transaction of its own and returns the clock it left. */
  readonly commitAlone: () => Promise<ClockRecord>;
}

/** Thrown to every write of a step whose clock change did not yield the expected clock: the step runs again. */
export class StepClockMovedError extends Error {
  constructor() {
    super("the shared clock moved elsewhere before this step's first write");
    this.name = "StepClockMovedError";
  }
}

/**
 * Holds a step's clock advance until the step's first write, so that write commits it: the first
 * invocation open carries it in its own transaction (one transaction fewer per step); any other first
 * write, or the end of a step that wrote nothing, commits it alone first. Every other write of the
 * step waits until the change is committed, so nothing commits against a clock that has not moved.
 * When the stored clock would not yield what the step expected (another process paused, reset or
 * stepped further), nothing of the step is written: the change is committed alone, the actual clock
 * recorded, and every write of the step fails with `StepClockMovedError` so the step starts over.
 */
export class StepClock {
  readonly #store: ControlPlaneStore;
  readonly #record: (clock: ClockRecord) => void;
  #pending: PendingClock | undefined;
  /** The write committing the pending change, while one is under way; the others wait for it. */
  #committing: Promise<unknown> | undefined;
  #moved = false;
  /** The store every write of a step goes through. */
  readonly store: ControlPlaneStore;

  constructor(store: ControlPlaneStore, record: (clock: ClockRecord) => void) {
    this.#store = store;
    this.#record = record;
    this.store = gatedStore(store, this);
  }

  /** True once the step's clock change turned out not to yield the expected clock. */
  get moved(): boolean {
    return this.#moved;
  }

  /** Holds `pending` until the step's first write. */
  hold(pending: PendingClock): void {
    this.#pending = pending;
    this.#moved = false;
  }

  /** Forgets the step: no change held, and writes pass again (the step runs from the recorded clock). */
  clear(): void {
    this.#pending = undefined;
    this.#moved = false;
  }

  /** True while a change is held that no write has committed yet. */
  get held(): boolean {
    return this.#pending !== undefined;
  }

  /** True when a write may go straight to the store. */
  get open(): boolean {
    return this.#pending === undefined && !this.#moved;
  }

  /** Commits a held change alone, unless a write committed it; `StepClockMovedError` if the clock moved elsewhere. */
  async settle(): Promise<void> {
    for (;;) {
      if (this.#moved) throw new StepClockMovedError();
      if (this.#committing) {
        await this.#committing.catch(() => undefined);
        continue;
      }
      const pending = this.#pending;
      if (!pending) return;
      await this.#commit(pending.commitAlone);
    }
  }

  /** An invocation open: the first of a step carries the held change in its transaction. */
  async openInvocation(args: Parameters<ControlPlaneStore["openInvocation"]>): Promise<void> {
    const [invocation, scheduler, fence, , admission] = args;
    // The same wait as settle's, kept inline: the check and the take must run without an await
    // between them, or two concurrent opens would both take the held change.
    for (;;) {
      if (this.#moved) throw new StepClockMovedError();
      if (this.#committing) {
        await this.#committing.catch(() => undefined);
        continue;
      }
      const pending = this.#pending;
      if (!pending) return this.#store.openInvocation(...args);
      let opened = false;
      await this.#commit(async () => {
        try {
          await this.#store.openInvocation(invocation, scheduler, fence, pending.fold, admission);
          opened = true;
          return pending.fold.expected;
        } catch (error) {
          if (!(error instanceof ClockMovedError)) throw error;
          return pending.commitAlone();
        }
      });
      if (opened) return;
    }
  }

  /** Runs the write that commits the held change; records where the clock is, or that it moved. */
  async #commit(write: () => Promise<ClockRecord>): Promise<void> {
    const pending = this.#pending;
    const committing = write();
    this.#committing = committing;
    try {
      const clock = await committing;
      this.#record(clock);
      this.#pending = undefined;
      if (pending && !sameClock(clock, pending.fold.expected)) this.#moved = true;
    } finally {
      this.#committing = undefined;
    }
  }
}

/** The store with every clock-dependent write held behind the step's clock change. */
function gatedStore(store: ControlPlaneStore, clock: StepClock): ControlPlaneStore {
  // One wrapper per method, made on first use rather than on every access: each port write comes
  // through here. A wrapper reads `clock.open` when called, and a method replaced on the store
  // gets a new one.
  const wrappers = new Map<string, { readonly method: unknown; readonly wrapper: unknown }>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      const known = wrappers.get(property);
      if (known?.method === value) return known.wrapper;
      const wrapper = gated(target, property, value as (...a: unknown[]) => unknown, clock);
      wrappers.set(property, { method: value, wrapper });
      return wrapper;
    },
  });
}

/** The method `property` of `store` (`method`) as a step writes through it. */
function gated(
  store: ControlPlaneStore,
  property: string,
  method: (...args: unknown[]) => unknown,
  clock: StepClock,
): unknown {
  if (property === "openInvocation") {
    return (...args: Parameters<ControlPlaneStore["openInvocation"]>) =>
      clock.open ? store.openInvocation(...args) : clock.openInvocation(args);
  }
  // Lease and membership bookkeeping, which a step does before it moves the clock, pass at once.
  if (!STORE_DATA_WRITES.has(property)) return method.bind(store);
  return (...args: unknown[]) =>
    clock.open ? method.apply(store, args) : clock.settle().then(() => method.apply(store, args));
}
