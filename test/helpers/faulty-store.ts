import type { ControlPlaneStore } from "../../src/index.js";
import { StoreUnavailableError } from "../../src/index.js";

const WRITE_METHODS = new Set([
  "saveClock",
  "saveScheduler",
  "openInvocation",
  "insertToolAction",
  "updateToolAction",
  "commitInvocation",
  "recordResolution",
]);

/** A real store behind a switch that makes chosen writes fail the way an unreachable store does. */
export function withWriteFaults(inner: ControlPlaneStore): {
  store: ControlPlaneStore;
  failing: Set<string>;
} {
  const failing = new Set<string>();
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (typeof property === "string" && WRITE_METHODS.has(property) && failing.has(property)) {
          return Promise.reject(new StoreUnavailableError(`injected: ${property} failed`));
        }
        return value.apply(target, args);
      };
    },
  });
  return { store, failing };
}
