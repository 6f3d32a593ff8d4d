import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { InvocationToolActionPort } from "../port/index.js";
import type { ToolMapEntry } from "./map.js";
import { describe, toolError, UNKNOWN_CODES } from "./results.js";
import { toolActionOutcome } from "./tool-request.js";
import type { UpstreamCallError } from "./upstream/index.js";

/** Where the gateway writes operator notes; never tool arguments or results. */
export type GatewayLog = (line: string) => void;

/**
 * Records each forwarded call's outcome through the port. A settle that is not on the client's path
 * (`completeBehind`) is issued at once and only its acknowledgement is waited for in the background;
 * `drain` waits for every one of them, so the gateway never shuts down with one still unrecorded.
 */
export class Settles {
  readonly #port: InvocationToolActionPort;
  readonly #log: GatewayLog;
  readonly #afterAnswer: boolean;
  readonly #pending = new Set<Promise<void>>();

  /** `afterAnswer`: outcomes are issued on the turn after their answers (`completeBehind`). */
  constructor(port: InvocationToolActionPort, log: GatewayLog, afterAnswer = false) {
    this.#port = port;
    this.#log = log;
    this.#afterAnswer = afterAnswer;
  }

  /**
   * Completes the action without holding up the answer. By default `port.complete` is called before
   * this returns, so the request is already on its way to the port (written to the bridge socket)
   * before the client can see the answer: a client that exits on its answer cannot close the
   * invocation ahead of it. With `afterAnswer` (an in-process port, host mode) it is called on the
   * event loop's next turn, once the answer is written: an in-process port commits the settlement on
   * the caller's time, and the answer need not wait for that commit. The settle is pending from now
   * on either way, so `drain`, which every session runs before its invocation ends, waits for it.
   * `done` is told once the port answered.
   */
  completeBehind(id: string, entry: ToolMapEntry, status: "succeeded" | "failed", done?: () => void): void {
    const issued = this.#afterAnswer
      ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.complete(id, entry, status))
      : this.complete(id, entry, status);
    const settle = issued
      .catch((error: unknown) => this.#log(`complete of ${id} failed: ${describe(error)}`))
      .finally(() => {
        this.#pending.delete(settle);
        done?.();
      });
    this.#pending.add(settle);
  }

  /** True while a settle issued behind its answer waits for the port. */
  get busy(): boolean {
    return this.#pending.size > 0;
  }

  /** Resolves once every settle issued so far has been answered by the port; never rejects. */
  async drain(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** Completes the action; a refusal is logged, and `outcome_invalid` reports unknown effects instead. */
  async complete(id: string, entry: ToolMapEntry, status: "succeeded" | "failed"): Promise<void> {
    const port = this.#port;
    const ack = await port
      .complete(id, toolActionOutcome(port, entry, id, status))
      .catch((error: unknown) => ({ ok: false as const, refusal: describe(error) }));
    if (ack.ok) return;
    this.#log(`complete of ${id} refused: ${ack.refusal}`);
    // docs/design.md §5: when the outcome cannot be recorded, report unknown effects instead.
    if (ack.refusal === "outcome_invalid")
      await port.reportUnknown(id, "outcome_invalid").catch(() => undefined);
  }

  /**
   * Reports the action's effects unknown and answers the client with the gateway code of why. When
   * the invocation closed during the call (kind `closed`), the close itself settled the action
   * (`invocation_returned_without_outcome`): the port, closed, is not asked again.
   */
  async reportUnknown(id: string, error: UpstreamCallError): Promise<CallToolResult> {
    const code = UNKNOWN_CODES[error.kind];
    if (error.kind !== "closed") {
      const ack = await this.#port
        .reportUnknown(id, code)
        .catch((e: unknown) => ({ ok: false as const, refusal: describe(e) }));
      if (!ack.ok) this.#log(`reportUnknown of ${id} refused: ${ack.refusal}`);
    }
    // Why, for the operator who resolves it: a call never sent had no effect (resolve --effect absent).
    this.#log(`${id} is indeterminate: ${code} (${error.message})`);
    return toolError(
      code,
      `${error.message}; the tool's effects are unknown and the action is indeterminate`,
      {
        actionInstanceId: id,
        settlement: "indeterminate",
      },
    );
  }
}
