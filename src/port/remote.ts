import { ParticipantToolActionRefusal as Refusal } from "./codes.js";
import type { InvocationToolActionPort, ToolActionPortIdentity } from "./types.js";
import { decodeWireValue, encodeWireValue } from "./wire-values.js";

/** The port methods a remote peer may call; nothing else crosses a bridge. */
export const REMOTE_METHODS = ["admit", "dispatch", "complete", "reportUnknown", "cancel"] as const;
/** A remotely callable port method. */
export type RemoteMethod = (typeof REMOTE_METHODS)[number];

/** A call from a remote peer. */
export interface RemoteCall {
  readonly id: number;
  readonly method: RemoteMethod;
  readonly args: readonly unknown[];
}

/** The answer to a remote call. */
export interface RemoteReply {
  readonly id: number;
  readonly result: unknown;
}

/** The first message a bridge sends: the port's read-only identity. */
export interface RemoteHello {
  readonly hello: ToolActionPortIdentity;
}

const METHOD_SET = new Set<string>(REMOTE_METHODS);
const IDENTITY_KEYS = [
  "invocationActionInstanceId",
  "participantAddress",
  "episodeId",
  "participantImplementationRef",
  "executionScopeRef",
  "executionGeneration",
  "observationPoint",
] as const;

/** The port's identity values, copied for the wire. */
export function portIdentity(port: ToolActionPortIdentity): ToolActionPortIdentity {
  const out: Record<string, unknown> = {};
  for (const key of IDENTITY_KEYS) out[key] = port[key];
  return out as unknown as ToolActionPortIdentity;
}

/** Parses an untrusted remote call; undefined when it is not one. */
export function parseRemoteCall(value: unknown): RemoteCall | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.id !== "number" || !Number.isSafeInteger(v.id)) return undefined;
  if (typeof v.method !== "string" || !METHOD_SET.has(v.method)) return undefined;
  if (!Array.isArray(v.args) || v.args.length > 2) return undefined;
  return { id: v.id, method: v.method as RemoteMethod, args: v.args };
}

/** Serves one remote call on the real port; a malformed call answers `request_invalid`. */
export async function serveRemoteCall(
  port: InvocationToolActionPort,
  value: unknown,
): Promise<RemoteReply | undefined> {
  const call = parseRemoteCall(value);
  if (!call) {
    const { id, method } = (value ?? {}) as { id?: unknown; method?: unknown };
    if (typeof id !== "number") return undefined;
    const refusal = Refusal.request_invalid;
    // The refusal takes the answer shape of the method that was meant, so a client can read it.
    const result =
      method === "admit"
        ? { admitted: false, refusal }
        : method === "dispatch"
          ? { accepted: false, refusal }
          : { ok: false, refusal };
    return { id, result };
  }
  const [a, b] = call.args.map(decodeWireValue);
  const invoke = port[call.method] as (x: unknown, y?: unknown) => Promise<unknown>;
  return { id: call.id, result: await invoke.call(port, a, b) };
}

/** Builds a port whose calls travel over `send`; replies are fed back through `receive`. */
export function remotePort(
  identity: ToolActionPortIdentity,
  send: (call: RemoteCall) => void,
  activity: (busy: boolean) => void = () => undefined,
): { port: InvocationToolActionPort; receive: (reply: unknown) => void; fail: (error: Error) => void } {
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  let failure: Error | undefined;
  const call = (method: RemoteMethod, args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      if (failure) return reject(failure);
      const id = next++;
      if (pending.size === 0) activity(true);
      pending.set(id, { resolve, reject });
      try {
        send({ id, method, args: args.map(encodeWireValue) });
      } catch (error) {
        pending.delete(id);
        if (pending.size === 0) activity(false);
        reject(error as Error);
      }
    });
  const port = Object.freeze({
    ...identity,
    admit: (request: unknown) => call("admit", [request]),
    dispatch: (id: unknown) => call("dispatch", [id]),
    complete: (id: unknown, outcome: unknown) => call("complete", [id, outcome]),
    reportUnknown: (id: unknown, reason: unknown) => call("reportUnknown", [id, reason]),
    cancel: (id: unknown) => call("cancel", [id]),
  }) as InvocationToolActionPort;
  return {
    port,
    receive: (reply) => {
      const r = reply as Partial<RemoteReply> | null;
      if (typeof r?.id !== "number") return;
      const waiter = pending.get(r.id);
      pending.delete(r.id);
      if (waiter && pending.size === 0) activity(false);
      waiter?.resolve(r.result);
    },
    fail: (error) => {
      failure = error;
      for (const waiter of pending.values()) waiter.reject(error);
      if (pending.size > 0) activity(false);
      pending.clear();
    },
  };
}
