import { setMaxListeners } from "node:events";
import type { InvocationToolActionPort } from "./types.js";

// Keyed by the exact port object, as the combined admit and dispatch is: a wrapper cannot tell.
const closings = new WeakMap<object, AbortSignal>();

/** Lets `closedSignal` on exactly `port` tell when it closes; internal to the port and its bridges. */
export function registerClosing(port: InvocationToolActionPort, signal: AbortSignal): void {
  // One listener per tool call waiting on the invocation's tools (the gateway's upstream calls), as
  // many as the claim lets run at once: past ten, Node would warn of a leak on every invocation.
  setMaxListeners(0, signal);
  closings.set(port, signal);
}

/**
 * A signal aborted once `port`'s invocation closes (its offer's `timeout_seconds` expired, or its
 * harness returned; through a bridge, once the serving side says the invocation is over). From then
 * on every call answers `invocation_closed`, and the close settles what is left by the close rules:
 * an action dispatched with no outcome settles `indeterminate`
 * (`unknown_reason: invocation_returned_without_outcome`). A caller waiting on a tool for such an
 * action can stop waiting: no outcome it learns later can be recorded. Undefined for a port not
 * built by raes-ts (or wrapped), which cannot say.
 *
 * @example
 * const closed = closedSignal(port);
 * closed?.addEventListener("abort", () => stopWaitingForTools(), { once: true });
 */
export function closedSignal(port: InvocationToolActionPort): AbortSignal | undefined {
  return closings.get(port);
}
