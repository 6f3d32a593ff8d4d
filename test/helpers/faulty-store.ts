import type { ControlPlaneStore } from "../../src/index.js";
import { StoreUnavailableError } from "../../src/index.js";
import { STORE_DATA_WRITES } from "../../src/store/index.js";

/**
 * A real store behind a switch that makes chosen writes fail the way an unreachable store does, or
 * with the error `fault` makes (a bug in the store, say).
 */
export function withWriteFaults(
  inner: ControlPlaneStore,
  fault: (method: string) => Error = (method) => new StoreUnavailableError(`injected: ${method} failed`),
): {
  store: ControlPlaneStore;
  failing: Set<string>;
} {
  const failing = new Set<string>();
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (typeof property === "string" && STORE_DATA_WRITES.has(property) && failing.has(property)) {
          return Promise.reject(fault(property));
        }
        return value.apply(target, args);
      };
    },
  });
  return { store, failing };
}

/**
 * A real store whose `method` runs through `around`, which gets the call's arguments and the real
 * call: to hold a write at a gate, or never let it commit. Every other method goes straight through.
 */
export function aroundStoreMethod(
  inner: ControlPlaneStore,
  method: keyof ControlPlaneStore,
  around: (args: unknown[], call: () => Promise<unknown>) => Promise<unknown>,
): ControlPlaneStore {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property !== method) return value.bind(target);
      return (...args: unknown[]) => around(args, async () => value.apply(target, args));
    },
  });
}

/** True when an `updateToolAction` call writes the settlement. */
export const isSettleWrite = (args: unknown[]): boolean =>
  (args[0] as { phase?: string }).phase === "settled";
