import type { InvocationToolActionPort, RefusalNote } from "./types.js";

export type { RefusalNote } from "./types.js";

/** The longest code and tool name a note carries; a note is a count, never a message. */
const MAX_CODE = 64;
const MAX_TOOL_NAME = 128;
const CODE = /^[a-z][a-z0-9_.-]*$/;

type Noter = (note: RefusalNote) => Promise<void>;

// Keyed by the exact port object, as the combined admit and dispatch is: a wrapper notes nothing.
const noters = new WeakMap<object, Noter>();

/** Lets `noteRefusal` on exactly `port` reach its invocation; internal to the port and its bridges. */
export function registerRefusalNote(port: InvocationToolActionPort, noter: Noter): void {
  noters.set(port, noter);
}

/** The note `value` is, when it is one: a short lower-case code and an optional short tool name. */
export function parseRefusalNote(value: unknown): RefusalNote | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { code, toolName } = value as { code?: unknown; toolName?: unknown };
  if (typeof code !== "string" || code.length > MAX_CODE || !CODE.test(code)) return undefined;
  if (toolName === undefined) return { code };
  if (typeof toolName !== "string") return undefined;
  return { code, toolName: toolName.slice(0, MAX_TOOL_NAME) };
}

/**
 * Tells the port's invocation about a call refused before the port was asked, so it is counted.
 * A port not built by raes-ts (or wrapped) is told nothing; the promise resolves either way.
 */
export function noteRefusal(port: InvocationToolActionPort, note: RefusalNote): Promise<void> {
  const noter = noters.get(port);
  return noter ? noter(note) : Promise.resolve();
}
