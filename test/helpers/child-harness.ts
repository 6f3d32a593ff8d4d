import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";
import type {
  InvocationToolActionPort,
  ParticipantActionRequest,
  ParticipantActionResult,
  ParticipantSnapshot,
} from "../../src/index.js";
import { admitAndDispatch } from "../../src/port/index.js";
import { PortedRuntime } from "./ported-runtime.js";
import { outcomeFor, requestFor } from "./tool-requests.js";

/** The moments of one tool call at which a test may watch or stop the harness. */
export type ToolCallMoment = "invocation" | "admitted" | "dispatched" | "effect" | "completed";

/** A port answer that was not the expected positive one. */
export interface ToolCallRefusal {
  readonly step: "admit" | "dispatch" | "complete";
  readonly refusal: string;
  readonly actionId: string | undefined;
}

/** How the effect harness behaves. */
export interface EffectHarnessOptions {
  /** Append-only file: one line `<action id>` per tool effect, fsynced before the tool finishes. */
  readonly effectFile: string;
  /** Tool calls per invocation, made one after the other. */
  readonly toolCalls: number;
  /** Admit and dispatch each call in one step (`admitAndDispatch`, as the MCP gateway does). */
  readonly combined?: boolean;
  /** Awaited at every moment; a crash test announces and blocks here. `call` counts from 1. */
  readonly at?: (moment: ToolCallMoment, id: string, call: number) => Promise<void> | void;
  /** Told of every refused port call; the invocation then stops calling tools and fails. */
  readonly refused?: (refusal: ToolCallRefusal) => Promise<void> | void;
}

/** Appends one effect line and forces it to disk, as a tool with a durable side effect would. */
export function appendEffect(effectFile: string, actionId: string): void {
  const fd = openSync(effectFile, "a");
  try {
    writeSync(fd, `${actionId}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The effect lines written so far, in order. */
export function readEffects(effectFile: string): string[] {
  if (!existsSync(effectFile)) return [];
  return readFileSync(effectFile, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

/**
 * A harness whose every tool call goes admit → dispatch → effect → complete through the port,
 * and whose effect is a durable line in a file the runtime never sees.
 */
export class EffectHarnessRuntime extends PortedRuntime {
  readonly #options: EffectHarnessOptions;

  constructor(options: EffectHarnessOptions) {
    super();
    this.#options = options;
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.takePort(request);
    if (!port) throw new Error(`no port attached for ${request.actionInstanceId}`);
    await this.#options.at?.("invocation", request.actionInstanceId, 0);
    let ok = true;
    for (let call = 1; call <= this.#options.toolCalls && ok; call += 1)
      ok = await this.#callTool(port, call);
    return this.nativeExecution(request, snapshot, episodeId, { status: ok ? "succeeded" : "failed" });
  }

  async #callTool(port: InvocationToolActionPort, call: number): Promise<boolean> {
    const at = this.#options.at ?? (() => undefined);
    const request = requestFor(port, `${port.invocationActionInstanceId}/call-${call}`);
    const answer = this.#options.combined
      ? await admitAndDispatch(port, request)
      : { decision: await port.admit(request) };
    const { decision } = answer;
    if (!decision.admitted) return this.#refused("admit", decision.refusal, undefined);
    const id = decision.actionInstanceId;
    await at("admitted", id, call);
    if (this.#options.combined && !answer.receipt) return this.#refused("dispatch", "no receipt", id);
    const receipt = answer.receipt ?? (await port.dispatch(id));
    if (!receipt.accepted) return this.#refused("dispatch", receipt.refusal, id);
    await at("dispatched", id, call);
    appendEffect(this.#options.effectFile, id);
    await at("effect", id, call);
    const ack = await port.complete(id, outcomeFor(port, id));
    if (!ack.ok) return this.#refused("complete", ack.refusal, id);
    await at("completed", id, call);
    return true;
  }

  async #refused(
    step: ToolCallRefusal["step"],
    refusal: string,
    actionId: string | undefined,
  ): Promise<false> {
    await this.#options.refused?.({ step, refusal, actionId });
    return false;
  }
}
