import type { InvocationSummary } from "../../src/index.js";

/**
 * What runtime callbacks (`attachInvocationToolActions`, `modelAction`, `admitAction`) threw. The
 * manager turns such a throw into a failed invocation and carries on, so an assertion made inside a
 * callback would never fail its test; guarding the callback keeps the failure for the test to rethrow.
 */
export class CallbackFailures {
  readonly #errors: unknown[] = [];

  /** Runs a callback body; whatever it throws is kept, then rethrown as the callback would. */
  async guard<T>(body: () => Promise<T> | T): Promise<T> {
    try {
      return await body();
    } catch (error) {
      this.#errors.push(error);
      throw error;
    }
  }

  /** Everything a guarded body threw so far, in order. */
  get errors(): readonly unknown[] {
    return this.#errors;
  }

  /** Throws what the guarded bodies threw: the one error itself, or an AggregateError of several. */
  rethrow(): void {
    throwAll(this.#errors, "runtime callbacks threw");
  }
}

/** Throws the error of every invocation that failed by throwing, so no callback failure passes unseen. */
export function rethrowInvocationErrors(invocations: readonly InvocationSummary[]): void {
  throwAll(
    invocations.flatMap((i) => (i.error === undefined ? [] : [i.error])),
    "invocations failed",
  );
}

function throwAll(errors: readonly unknown[], message: string): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} ${message}`);
}
