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
  readonly #pending = new Set<Promise<void>>();

  constructor(port: InvocationToolActionPort, log: GatewayLog) {
    this.#port = port;
    this.#log = log;
  }

  /**
   * Completes the action without holding up the answer. `port.complete` is called before this
   * returns, so the request is already on its way to the port (written to the bridge socket, or
   * queued in an in-process port) before the client can see the answer: a client that exits on its
   * answer cannot close the invocation ahead of it. `done` is told once the port answered.
   */
  completeBehind(id: string, entry: ToolMapEntry, status: "succeeded" | "failed", done?: () => void): void {
    const settle = this.complete(id, entry, status)
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

  /** Reports the action's effects unknown and answers the client with the gateway code of why. */
  async reportUnknown(id: string, error: UpstreamCallError): Promise<CallToolResult> {
    const code = UNKNOWN_CODES[error.kind];
    const ack = await this.#port
      .reportUnknown(id, code)
      .catch((e: unknown) => ({ ok: false as const, refusal: describe(e) }));
    if (!ack.ok) this.#log(`reportUnknown of ${id} refused: ${ack.refusal}`);
    this.#log(`${id} is indeterminate: ${code}`);
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
