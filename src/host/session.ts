import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  type GatewaySession,
  type GovernedCalls,
  type SessionCalls,
  type ToolCall,
  toolError,
} from "../mcp/index.js";
import type { InvocationToolActionPort } from "../port/index.js";
import { HostCode } from "./codes.js";
import type { HostDriver, SessionClaim } from "./driver.js";
import type { LiveInvocation } from "./host-runtime.js";

/** What a client whose session the gateway ended should know: the next one is a new invocation. */
const NEXT_SESSION = "the next session is a new invocation";

type Bound =
  | { readonly kind: "live"; readonly invocation: LiveInvocation; readonly calls: GovernedCalls }
  | { readonly kind: "refused"; readonly answer: CallToolResult; readonly invocation?: LiveInvocation };

/**
 * One MCP session of host mode: its first `tools/call` claims the participant's next invocation, and
 * every tool call of the session is a tool action of that invocation. Listing tools claims nothing,
 * so a host that connects and lists at start-up does not start the offer's timeout. The invocation
 * returns when the session ends: the client leaves, `idleMs` pass without a `tools/list` or
 * `tools/call` and with no call waiting for its answer, or the offer's timeout closes it (then the session is closed too, so the client
 * starts a new one).
 */
export class HostSession implements SessionCalls {
  readonly #driver: HostDriver;
  readonly #session: GatewaySession;
  readonly #governed: (port: InvocationToolActionPort) => GovernedCalls;
  readonly #idleMs: number;
  #bound: Promise<Bound> | undefined;
  #claimed: Bound | undefined;
  #idle: NodeJS.Timeout | undefined;
  /** Calls not yet answered: a call held for approval may wait longer than the idle timeout. */
  #inFlight = 0;
  #ended = false;

  constructor(options: {
    readonly driver: HostDriver;
    readonly session: GatewaySession;
    readonly governed: (port: InvocationToolActionPort) => GovernedCalls;
    /** How long the session may go without a request before it ends. */
    readonly idleMs: number;
  }) {
    this.#driver = options.driver;
    this.#session = options.session;
    this.#governed = options.governed;
    this.#idleMs = options.idleMs;
  }

  touched(): void {
    if (this.#ended || !this.#bound) return;
    this.#restartIdle();
  }

  async handle(call: ToolCall): Promise<CallToolResult> {
    if (this.#ended && !this.#bound)
      return toolError(HostCode.session_ended, "this MCP session has ended; start a new one");
    if (!this.#bound) {
      this.#bound = this.#driver
        .claim(() => !this.#ended)
        .then((claim) => {
          this.#claimed = this.#bind(claim);
          return this.#claimed;
        });
      this.#restartIdle();
    }
    this.#inFlight += 1;
    try {
      const bound = await this.#bound;
      return bound.kind === "live" ? await bound.calls.handle(call) : bound.answer;
    } finally {
      this.#inFlight -= 1;
      this.#restartIdle();
    }
  }

  #restartIdle(): void {
    clearTimeout(this.#idle);
    if (this.#ended) return;
    // A session waiting on its own call is not idle: the idle time counts from its last answer.
    this.#idle = setTimeout(() => {
      if (this.#inFlight > 0) this.#restartIdle();
      else void this.#session.close(`idle for ${this.#idleMs / 1000} s; ${NEXT_SESSION}`);
    }, this.#idleMs);
  }

  /** Drains the invocation's calls; a claim still waiting for its turn has none, and is not waited for. */
  async drain(): Promise<void> {
    if (this.#claimed?.kind === "live") await this.#claimed.calls.drain();
  }

  releaseHolds(): void {
    if (this.#claimed?.kind === "live") this.#claimed.calls.releaseHolds();
  }

  ended(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#idle);
    // A claim still being made ends its invocation as soon as it starts.
    void this.#bound?.then((bound) => {
      bound.invocation?.end();
    });
  }

  #bind(claim: SessionClaim): Bound {
    if (claim.kind === "refused") return { kind: "refused", answer: toolError(claim.code, claim.message) };
    const { invocation } = claim;
    if (this.#ended) invocation.end();
    // The offer's timeout closed the port: the session is over, and the client will open a new one.
    const timedOut = () => void this.#session.close(`the invocation's offer timed out; ${NEXT_SESSION}`);
    if (invocation.signal.aborted) timedOut();
    else invocation.signal.addEventListener("abort", timedOut, { once: true });
    if (!invocation.port) {
      return {
        kind: "refused",
        invocation,
        answer: toolError(
          HostCode.no_tool_actions,
          `${invocation.request.participantAddress} has no tool affordance binding, so no tool call can be governed`,
        ),
      };
    }
    return { kind: "live", invocation, calls: this.#governed(invocation.port) };
  }
}
