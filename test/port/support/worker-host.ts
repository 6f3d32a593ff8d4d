import { Worker } from "node:worker_threads";
import { exposeToolActionPort, type InvocationToolActionPort } from "../../../src/index.js";
import type { FromWorker, ToWorker } from "./port-worker.js";

const BOOTSTRAP = new URL("./tsx-worker.mjs", import.meta.url);
const WORKER_FILE = new URL("./port-worker.ts", import.meta.url);

/**
 * The parent side of `port-worker.ts`: hands each invocation's port to the worker as a transferred
 * MessagePort, and returns a port whose every call is made by the worker over that bridge.
 */
export class WorkerPortHost {
  readonly worker = new Worker(BOOTSTRAP, { workerData: { entry: WORKER_FILE.href } });
  /** The thread id each connected session reported from inside the worker. */
  readonly callerThreads = new Set<number>();
  #nextSession = 1;
  #nextCall = 1;
  readonly #connected = new Map<number, (identity: Record<string, unknown>) => void>();
  readonly #sessionOf = new WeakMap<InvocationToolActionPort, number>();
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor() {
    this.worker.on("message", (message: FromWorker) => {
      if (message.type === "connected") {
        this.callerThreads.add(message.threadId);
        return this.#connected.get(message.session)?.(message.identity);
      }
      const waiter = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.type === "result") waiter?.resolve(message.result);
      else waiter?.reject(new Error(message.message));
    });
    this.worker.on("error", (error) => {
      for (const waiter of this.#pending.values()) waiter.reject(error);
    });
  }

  /** Exposes the port, transfers it to the worker, and waits until the worker has connected. */
  readonly connect = async (port: InvocationToolActionPort): Promise<InvocationToolActionPort> => {
    const session = this.#nextSession++;
    const messagePort = exposeToolActionPort(port);
    const identity = await new Promise<Record<string, unknown>>((resolve) => {
      this.#connected.set(session, resolve);
      this.worker.postMessage({ type: "connect", session, port: messagePort } satisfies ToWorker, [
        messagePort,
      ]);
    });
    this.#connected.delete(session);
    const call =
      (method: string) =>
      (...args: unknown[]) =>
        new Promise<unknown>((resolve, reject) => {
          const id = this.#nextCall++;
          this.#pending.set(id, { resolve, reject });
          this.worker.postMessage({ type: "call", session, id, method, args } satisfies ToWorker);
        });
    const relayed = Object.freeze({
      ...identity,
      admit: call("admit"),
      dispatch: call("dispatch"),
      complete: call("complete"),
      reportUnknown: call("reportUnknown"),
      cancel: call("cancel"),
    }) as unknown as InvocationToolActionPort;
    this.#sessionOf.set(relayed, session);
    return relayed;
  };

  /** Has the worker count its live MessagePorts around a malformed admit of its own. */
  refsAroundMalformedAdmit(port: InvocationToolActionPort): Promise<[number, number]> {
    const session = this.#sessionOf.get(port);
    return new Promise((resolve, reject) => {
      const id = this.#nextCall++;
      this.#pending.set(id, { resolve: (v) => resolve(v as [number, number]), reject });
      this.worker.postMessage({ type: "refs", session: session ?? -1, id } satisfies ToWorker);
    });
  }

  /** Has the worker build and send the malformed calls of `malformed.ts` itself, over the session's bridge. */
  malformed(port: InvocationToolActionPort, admittedId: string): Promise<string[]> {
    const session = this.#sessionOf.get(port);
    return new Promise((resolve, reject) => {
      const id = this.#nextCall++;
      this.#pending.set(id, { resolve: (v) => resolve(v as string[]), reject });
      this.worker.postMessage({
        type: "malformed",
        session: session ?? -1,
        id,
        admittedId,
      } satisfies ToWorker);
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
