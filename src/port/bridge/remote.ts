import { admitAndDispatch, registerAdmitDispatch } from "../admit-dispatch.js";
import { type ApprovalAnswer, awaitApproval, parseApprovalWait, registerApproval } from "../approval.js";
import { registerClosing } from "../closing.js";
import { ParticipantToolActionRefusal as Refusal } from "../codes.js";
import { noteRefusal, parseRefusalNote, registerRefusalNote } from "../refusal-note.js";
import type { InvocationToolActionPort, PortAck, ToolActionPortIdentity } from "../types.js";
import { registerWithhold, withhold } from "../withhold.js";
import { decodeWireValue, encodeWireValue } from "./wire-values.js";

/** The port methods a remote peer may call; nothing else crosses a bridge. */
export const REMOTE_METHODS = ["admit", "dispatch", "complete", "reportUnknown", "cancel"] as const;
/**
 * The bridge's own step beyond the port API: admit and, when fresh, dispatch in one round trip and
 * one durable write (`admitAndDispatch`). A server offers it in its hello; a client uses it only then.
 */
export const ADMIT_DISPATCH = "admitDispatch";
/**
 * The bridge's step for a call refused before the port was asked (`noteRefusal`): counted by the
 * invocation, no record. A server offers it in its hello; a client sends notes only then.
 */
export const NOTE_REFUSAL = "noteRefusal";
/**
 * The bridge's step for a cancel that says why (`withhold`): the action settles `withheld` with its
 * reason recorded. A server offers it in its hello; a client without it sends a plain `cancel`.
 */
export const WITHHOLD = "withhold";
/**
 * The bridge's step for a call held for approval (`awaitApproval`): one request, answered once the
 * approval is decided or expires; `[id, {timeoutSeconds}]`. A client whose agent gives up withholds
 * the action (`withhold`), which ends the wait. A server offers it in its hello; a client without it
 * cannot hold calls.
 */
export const AWAIT_APPROVAL = "awaitApproval";
/** A remotely callable method: a port method, or one of the bridge's own steps. */
export type RemoteMethod =
  | (typeof REMOTE_METHODS)[number]
  | typeof ADMIT_DISPATCH
  | typeof NOTE_REFUSAL
  | typeof WITHHOLD
  | typeof AWAIT_APPROVAL;

/** A call from a remote peer. */
export interface RemoteCall {
  readonly id: number;
  readonly method: RemoteMethod;
  readonly args: readonly unknown[];
}

/**
 * The answer to a remote call: the port's answer, or `error` when the port itself threw, so the
 * caller's promise rejects as it would have in process.
 */
export type RemoteReply =
  | { readonly id: number; readonly result: unknown }
  | { readonly id: number; readonly error: typeof PORT_FAILED };

/** The only error text a reply carries; what the port threw stays on the serving side. */
export const PORT_FAILED = "tool-action port call failed";

/** The last message a served port sends each peer: every later call answers `closed`. */
export interface RemoteEnd {
  readonly closed: Refusal;
}

/** The first message a bridge sends: the port's read-only identity, and the extra steps it serves. */
export interface RemoteHello {
  readonly hello: ToolActionPortIdentity;
  /** `["admitDispatch"]` from servers that serve it; absent from older ones. */
  readonly ops?: readonly string[];
}

/** The hello a serving bridge sends for `port`. */
export function helloFor(port: ToolActionPortIdentity): RemoteHello {
  return { hello: portIdentity(port), ops: [ADMIT_DISPATCH, NOTE_REFUSAL, WITHHOLD, AWAIT_APPROVAL] };
}

/** The bridge's own steps a hello offers, as `remotePort` options. */
export function offeredSteps(message: unknown): {
  readonly admitDispatch: boolean;
  readonly noteRefusal: boolean;
  readonly withhold: boolean;
  readonly awaitApproval: boolean;
} {
  const ops = (message as { ops?: unknown } | null | undefined)?.ops;
  return {
    admitDispatch: offersAdmitDispatch(message),
    noteRefusal: offersNoteRefusal(message),
    withhold: Array.isArray(ops) && ops.includes(WITHHOLD),
    awaitApproval: Array.isArray(ops) && ops.includes(AWAIT_APPROVAL),
  };
}

/** Whether a hello offers refusal notes. */
export function offersNoteRefusal(message: unknown): boolean {
  const ops = (message as { ops?: unknown } | null | undefined)?.ops;
  return Array.isArray(ops) && ops.includes(NOTE_REFUSAL);
}

/** Whether a hello offers the combined admit and dispatch. */
export function offersAdmitDispatch(message: unknown): boolean {
  const ops = (message as { ops?: unknown } | null | undefined)?.ops;
  return Array.isArray(ops) && ops.includes(ADMIT_DISPATCH);
}

const METHOD_SET = new Set<string>([
  ...REMOTE_METHODS,
  ADMIT_DISPATCH,
  NOTE_REFUSAL,
  WITHHOLD,
  AWAIT_APPROVAL,
]);
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

/**
 * The id a reply to `value` would carry: a safe integer on a non-array object. Anything else
 * cannot be answered, since no answer could name the call it belongs to.
 */
export function callId(value: unknown): number | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const id = (value as { id?: unknown }).id;
  return typeof id === "number" && Number.isSafeInteger(id) ? id : undefined;
}

/** A refusal in the answer shape of `method`, so a client reads it as that call's answer. */
export function refusalAnswer(method: unknown, refusal: Refusal): unknown {
  if (method === "admit") return { admitted: false, refusal };
  if (method === ADMIT_DISPATCH) return { decision: { admitted: false, refusal } };
  if (method === "dispatch") return { accepted: false, refusal };
  return { ok: false, refusal };
}

/** The `request_invalid` refusal in the answer shape of the method a malformed call meant. */
function refusedCall(id: number, method: unknown): RemoteReply {
  return { id, result: refusalAnswer(method, Refusal.request_invalid) };
}

/**
 * Serves one remote call on the real port; it never rejects. A malformed call, or one whose
 * arguments exceed the bridge bounds, answers `request_invalid`; one without a `callId` gives undefined.
 */
export async function serveRemoteCall(
  port: InvocationToolActionPort,
  value: unknown,
): Promise<RemoteReply | undefined> {
  const id = callId(value);
  if (id === undefined) return undefined;
  const { method } = value as { method?: unknown };
  const call = parseRemoteCall(value);
  if (!call) return refusedCall(id, method);
  const args: unknown[] = [];
  for (const arg of call.args) {
    const decoded = decodeWireValue(arg);
    if (!decoded) return refusedCall(id, method);
    args.push(decoded.value);
  }
  try {
    if (call.method === ADMIT_DISPATCH) return { id, result: await admitAndDispatch(port, args[0]) };
    if (call.method === NOTE_REFUSAL) {
      const note = parseRefusalNote(args[0]);
      if (note) await noteRefusal(port, note);
      return { id, result: { ok: true } };
    }
    if (call.method === WITHHOLD) {
      if (typeof args[0] !== "string" || typeof args[1] !== "string") return refusedCall(id, method);
      return { id, result: await withhold(port, args[0], args[1]) };
    }
    if (call.method === AWAIT_APPROVAL) {
      const wait = parseApprovalWait(args[1]);
      if (typeof args[0] !== "string" || !wait) return refusedCall(id, method);
      return { id, result: await awaitApproval(port, args[0], wait) };
    }
    const invoke = port[call.method] as (x: unknown, y?: unknown) => Promise<unknown>;
    return { id, result: await invoke.call(port, args[0], args[1]) };
  } catch {
    return { id, error: PORT_FAILED };
  }
}

/**
 * The calls a served port has read and not yet answered, over a socket or a MessagePort: its close
 * tells the peers the invocation is over only once they are (`settled`).
 */
export class CallsInFlight {
  readonly #calls = new Set<Promise<unknown>>();

  /** Keeps `answered`, a promise that never rejects, until it settles. */
  track(answered: Promise<unknown>): void {
    this.#calls.add(answered);
    void answered.finally(() => this.#calls.delete(answered));
  }

  /** Settles once every call tracked, those tracked meanwhile too, is answered. */
  async settled(): Promise<void> {
    while (this.#calls.size > 0) await Promise.all([...this.#calls]);
  }
}

/**
 * Builds a port whose calls travel over `send`; replies are fed back through `receive`. With
 * `admitDispatch` (the server's hello offered it), `admitAndDispatch` on it takes one round trip.
 */
export function remotePort(
  identity: ToolActionPortIdentity,
  send: (call: RemoteCall) => void,
  activity: (busy: boolean) => void = () => undefined,
  options: {
    readonly admitDispatch?: boolean;
    readonly noteRefusal?: boolean;
    readonly withhold?: boolean;
    readonly awaitApproval?: boolean;
  } = {},
): {
  port: InvocationToolActionPort;
  receive: (reply: unknown) => void;
  fail: (error: Error) => void;
  /** The serving side said the invocation is over: pending and later calls answer `refusal`. */
  end: (refusal: Refusal) => void;
} {
  const pending = new Map<
    number,
    { method: RemoteMethod; resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  let next = 1;
  let failure: Error | undefined;
  let ended: Refusal | undefined;
  // Aborted once the serving side says the invocation is over, so a caller waiting on a tool stops.
  const closed = new AbortController();
  const call = (method: RemoteMethod, args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      if (ended) return resolve(refusalAnswer(method, ended));
      if (failure) return reject(failure);
      const id = next++;
      if (pending.size === 0) activity(true);
      pending.set(id, { method, resolve, reject });
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
  registerClosing(port, closed.signal);
  if (options.admitDispatch === true)
    registerAdmitDispatch(port, (request) => call(ADMIT_DISPATCH, [request]) as never);
  if (options.noteRefusal === true)
    registerRefusalNote(port, (note) => call(NOTE_REFUSAL, [note]).then(() => undefined));
  if (options.withhold === true)
    registerWithhold(port, (id, reason) => call(WITHHOLD, [id, reason]) as Promise<PortAck>);
  if (options.awaitApproval === true)
    registerApproval(port, (id, wait) => {
      const answer = call(AWAIT_APPROVAL, [id, { timeoutSeconds: wait.timeoutSeconds }]);
      // The signal cannot cross the bridge: an agent that gives up withholds the action, which
      // ends the wait on the serving side (its answer then says expired).
      const giveUp = () => void call(WITHHOLD, [id, "approval_expired"]).catch(() => undefined);
      wait.signal?.addEventListener("abort", giveUp, { once: true });
      return (answer as Promise<ApprovalAnswer>).finally(() =>
        wait.signal?.removeEventListener("abort", giveUp),
      );
    });
  return {
    port,
    receive: (reply) => {
      const r = reply as { id?: unknown; result?: unknown; error?: unknown } | null;
      if (typeof r?.id !== "number") return;
      const waiter = pending.get(r.id);
      pending.delete(r.id);
      if (waiter && pending.size === 0) activity(false);
      if ("error" in r) waiter?.reject(new Error(PORT_FAILED));
      else waiter?.resolve(r.result);
    },
    end: (refusal) => {
      ended ??= refusal;
      for (const waiter of pending.values()) waiter.resolve(refusalAnswer(waiter.method, refusal));
      if (pending.size > 0) activity(false);
      pending.clear();
      if (!closed.signal.aborted) closed.abort();
    },
    fail: (error) => {
      if (ended) return;
      failure = error;
      for (const waiter of pending.values()) waiter.reject(error);
      if (pending.size > 0) activity(false);
      pending.clear();
    },
  };
}
