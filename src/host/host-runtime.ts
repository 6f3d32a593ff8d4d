import type { InvocationToolActionPort } from "../port/index.js";
import {
  type ModelActionContext,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
} from "../runtime/index.js";

/** One running outer invocation of the host's participant, waiting for its MCP session to end. */
export interface LiveInvocation {
  readonly request: ParticipantActionRequest;
  /** Undefined when the participant has no tool affordance binding. */
  readonly port: InvocationToolActionPort | undefined;
  /** Aborts when the offer's `timeout_seconds` expires: the port is closed then. */
  readonly signal: AbortSignal;
  /** Ends the invocation: it returns `succeeded`. Idempotent. */
  end(): void;
}

/**
 * The participant runtime of host mode: each invocation of its participant is handed to the MCP
 * session that waits for one, and returns `succeeded` once that session ends. An invocation no
 * session waits for (a second attempt due in the same step) and any invocation of another participant
 * fail at once, with a line saying so: nobody would act in them.
 */
export class HostRuntime extends ReferenceAutonomousParticipantRuntime {
  readonly #participant: string;
  readonly #log: (line: string) => void;
  readonly #ports = new Map<string, InvocationToolActionPort>();
  #waiter: ((invocation: LiveInvocation) => void) | undefined;

  constructor(participant: string, log: (line: string) => void) {
    super();
    this.#participant = participant;
    this.#log = log;
  }

  /** Keeps the port for the invocation about to start. */
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#ports.set(port.invocationActionInstanceId, port);
  }

  /** Resolves with the next invocation of the participant to start; only one waiter at a time. */
  nextInvocation(): { readonly started: Promise<LiveInvocation>; cancel(): LiveInvocation | undefined } {
    let taken: LiveInvocation | undefined;
    let give: (invocation: LiveInvocation) => void = () => undefined;
    const started = new Promise<LiveInvocation>((resolve) => {
      give = (invocation) => {
        taken = invocation;
        resolve(invocation);
      };
    });
    this.#waiter = give;
    return {
      started,
      // Stops waiting; an invocation handed over meanwhile is returned, never lost.
      cancel: () => {
        if (this.#waiter === give) this.#waiter = undefined;
        return taken;
      },
    };
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId, signal }: ModelActionContext,
  ): Promise<ParticipantActionResult> {
    const port = this.#ports.get(request.actionInstanceId);
    this.#ports.delete(request.actionInstanceId);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (request.participantAddress !== this.#participant || !waiter) {
      const why = waiter ? `this gateway runs only ${this.#participant}` : "no MCP session waits for it";
      this.#log(`${request.actionInstanceId} failed: ${why}`);
      if (waiter) this.#waiter = waiter;
      return this.nativeExecution(request, snapshot, episodeId, { status: "failed" });
    }
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const onAbort = () => end();
    signal.addEventListener("abort", onAbort, { once: true });
    const invocation: LiveInvocation = { request, port, signal, end: () => end() };
    waiter(invocation);
    try {
      await ended;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    return this.nativeExecution(request, snapshot, episodeId, { status: "succeeded" });
  }
}
