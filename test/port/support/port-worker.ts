/**
 * A worker thread that connects to invocation ports with `connectToolActionPort(messagePort)` and
 * makes the port calls its parent asks for, so every call crosses the worker-thread bridge.
 */
import { type MessagePort, parentPort, threadId } from "node:worker_threads";
import { connectToolActionPort, type InvocationToolActionPort } from "../../../src/index.js";
import { REMOTE_METHODS } from "../../../src/port/bridge/remote.js";
import { malformedAnswers, refsAroundMalformedAdmit } from "./malformed.js";

/** A message from the parent. */
export type ToWorker =
  | { readonly type: "connect"; readonly session: number; readonly port: MessagePort }
  | {
      readonly type: "call";
      readonly session: number;
      readonly id: number;
      readonly method: string;
      readonly args: unknown[];
    }
  | {
      readonly type: "malformed";
      readonly session: number;
      readonly id: number;
      readonly admittedId: string;
    }
  | { readonly type: "refs"; readonly session: number; readonly id: number };

/** A message to the parent. */
export type FromWorker =
  | {
      readonly type: "connected";
      readonly session: number;
      readonly threadId: number;
      readonly identity: Record<string, unknown>;
    }
  | { readonly type: "result"; readonly id: number; readonly result: unknown }
  | { readonly type: "error"; readonly id: number; readonly message: string };

const IDENTITY = [
  "invocationActionInstanceId",
  "participantAddress",
  "episodeId",
  "participantImplementationRef",
  "executionScopeRef",
  "executionGeneration",
  "observationPoint",
] as const;
const sessions = new Map<number, InvocationToolActionPort>();
const parent = parentPort;
if (!parent) throw new Error("port-worker.ts runs only as a worker thread");

parent.on("message", async (message: ToWorker) => {
  if (message.type === "connect") {
    const port = await connectToolActionPort(message.port);
    sessions.set(message.session, port);
    const identity = Object.fromEntries(IDENTITY.map((key) => [key, port[key]]));
    parent.postMessage({
      type: "connected",
      session: message.session,
      threadId,
      identity,
    } satisfies FromWorker);
    return;
  }
  const port = sessions.get(message.session);
  if (message.type === "refs") {
    const result = port ? await refsAroundMalformedAdmit(port) : [];
    parent.postMessage({ type: "result", id: message.id, result } satisfies FromWorker);
    return;
  }
  if (message.type === "malformed") {
    const result = port ? await malformedAnswers(port, message.admittedId) : [];
    parent.postMessage({ type: "result", id: message.id, result } satisfies FromWorker);
    return;
  }
  const method = REMOTE_METHODS.find((m) => m === message.method);
  try {
    if (!port || !method) throw new Error(`no session ${message.session} or method ${message.method}`);
    const call = port[method] as (...args: unknown[]) => Promise<unknown>;
    const result = await call(...message.args);
    parent.postMessage({ type: "result", id: message.id, result } satisfies FromWorker);
  } catch (error) {
    parent.postMessage({ type: "error", id: message.id, message: String(error) } satisfies FromWorker);
  }
});
