import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { valueDepthExceeds } from "../input/index.js";
import {
  type AdmitDispatchAnswer,
  admitAndDispatch,
  awaitApproval,
  closedSignal,
  type DispatchReceipt,
  type InvocationToolActionPort,
  noteRefusal,
  withhold,
} from "../port/index.js";
import { approvalCommands } from "../printed/index.js";
import { WithheldReason } from "../records/index.js";

import { type CallStages, type Stamps, stagesOf } from "./call-stages.js";
import type { ToolMap, ToolMapEntry } from "./map.js";
import { describe, GatewayErrorCode, META_CODE, META_SETTLEMENT, toolError } from "./results.js";
import { type GatewayLog, Settles } from "./settle.js";
import { toolCallIdFor } from "./tool-call-id.js";
import { callFingerprint, toolActionRequest } from "./tool-request.js";
import { metaFromContext, ToolCallSpan } from "./tracing.js";
import { type Upstream, UpstreamCallError } from "./upstream/index.js";

export type { GatewayLog } from "./settle.js";

/** One MCP `tools/call` as the gateway receives it. */
export interface ToolCall {
  readonly name: string;
  readonly arguments: Record<string, unknown> | undefined;
  readonly requestId: string | number;
  readonly signal: AbortSignal;
  /** The request's `_meta`; only its W3C trace context (`traceparent`, `tracestate`) is read. */
  readonly meta?: unknown;
  /** The MCP protocol version the session negotiated, for the call's span. */
  readonly protocolVersion?: string;
  /** `pipe` (stdio) or `tcp` (Streamable HTTP), for the call's span. */
  readonly networkTransport?: "pipe" | "tcp";
  /** Sends the agent an MCP progress notification; present only when it asked (a progressToken). */
  readonly progress?: (progress: number, message: string) => Promise<void>;
}

/** How often a held call tells an agent that asked for progress that it still waits. */
const PROGRESS_EVERY_MS = 1000;

interface Settled {
  /** Digest of tool name and arguments, kept in memory only, to tell a retry from a reused id. */
  readonly fingerprint: string;
  readonly answer: Promise<CallToolResult>;
}

/** The deepest tool arguments forwarded; MCP tool inputs are shallow JSON objects. */
const MAX_ARGUMENT_DEPTH = 64;

/**
 * Runs each MCP tool call as a governed tool action: admit, dispatch, forward, settle. It keeps, in
 * memory only, the answer per admitted action, so a retried request never reaches the upstream twice.
 *
 * The upstream's answer goes to the client as soon as it arrives; its outcome (`complete`) is issued
 * to the port first but committed behind the answer. Waiting for that commit would add a port round
 * trip to every call and guard nothing: the dispatch record is already durable, so a crash before the
 * outcome commits leaves the action dispatched, which recovery settles indeterminate, the honest
 * state when RAES does not know the outcome. `drain` waits for those settles, and both gateways drain
 * before they exit. Answers that name a settlement (cancelled, indeterminate) still wait for it.
 */
export class GovernedCalls {
  readonly #port: InvocationToolActionPort;
  readonly #map: ToolMap;
  readonly #upstream: Upstream;
  readonly #sessionId: string;
  readonly #timeoutMs: number;
  readonly #log: GatewayLog;
  readonly #storeUrl: string | undefined;
  readonly #settles: Settles;
  readonly #settled = new Map<string, Settled>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #onStages: ((stages: CallStages) => void) | undefined;
  /** Aborted once the client is gone: a call still held for approval then expires, and never runs. */
  readonly #hungUp = new AbortController();

  constructor(options: {
    readonly port: InvocationToolActionPort;
    readonly map: ToolMap;
    readonly upstream: Upstream;
    readonly sessionId: string;
    readonly timeoutMs: number;
    readonly log: GatewayLog;
    /** The store the runtime holding these calls writes, when known: the held-call log line then prints runnable commands. */
    readonly storeUrl?: string;
    /** Told the stage times of every call that reached the upstream, to find where latency goes. */
    readonly onStages?: (stages: CallStages) => void;
    /**
     * The port is in this process and every session drains before its invocation ends (host mode):
     * an outcome is recorded on the turn after its answer, so the answer never waits for the
     * settlement's commit. Unset for a port over a socket, whose settle request is written first.
     */
    readonly settleAfterAnswer?: boolean;
  }) {
    this.#port = options.port;
    this.#map = options.map;
    this.#upstream = options.upstream;
    this.#sessionId = options.sessionId;
    this.#timeoutMs = options.timeoutMs;
    this.#log = options.log;
    this.#storeUrl = options.storeUrl;
    this.#settles = new Settles(options.port, options.log, options.settleAfterAnswer === true);
    this.#onStages = options.onStages;
  }

  /** Answers one `tools/call`; the upstream sees it only after an accepted dispatch receipt. */
  handle(call: ToolCall): Promise<CallToolResult> {
    const toolCallId = toolCallIdFor(this.#sessionId, call.requestId);
    const entry = this.#map.tools.get(call.name);
    const span = new ToolCallSpan(
      call.name,
      call.meta,
      {
        requestId: call.requestId,
        sessionId: this.#sessionId,
        ...(call.protocolVersion === undefined ? {} : { protocolVersion: call.protocolVersion }),
        ...(call.networkTransport === undefined ? {} : { networkTransport: call.networkTransport }),
      },
      {
        "gen_ai.tool.call.id": toolCallId,
        ...(entry ? { "raes.tool_affordance.address": entry.toolAffordanceAddress } : {}),
      },
    );
    if (!entry) {
      return this.#refuse(
        span,
        GatewayErrorCode.tool_not_mapped,
        `tool '${call.name.slice(0, 128)}' is not in the gateway map`,
      );
    }
    // Deeper arguments could not be digested or sent on; refuse them before anything is admitted.
    if (call.arguments !== undefined && valueDepthExceeds(call.arguments, MAX_ARGUMENT_DEPTH)) {
      return this.#refuse(
        span,
        GatewayErrorCode.arguments_invalid,
        `the arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels; the tool was not run`,
      );
    }
    // Calls with one tool_call_id run one after another, so a retry sees the first one's settlement.
    const previous = this.#queues.get(toolCallId) ?? Promise.resolve();
    const stamps: Stamps = { start: performance.now() };
    const answer = previous.then(() => this.#govern(call, entry, toolCallId, span, stamps));
    answer.then(
      (result) => {
        this.#stamp(stamps, "replied");
        const code = result._meta?.[META_CODE];
        const settlement = result._meta?.[META_SETTLEMENT];
        span.end({
          ...span.outcome,
          ...(typeof code === "string" ? { code } : {}),
          ...(typeof settlement === "string" ? { settlement } : {}),
          ...(result.isError === true ? { toolError: true } : {}),
        });
      },
      () => {
        this.#stamp(stamps, "replied");
        span.end(span.outcome);
      },
    );
    const tail = answer.catch(() => undefined);
    this.#queues.set(toolCallId, tail);
    this.#inFlight.add(tail);
    void tail.then(() => {
      this.#inFlight.delete(tail);
      if (this.#queues.get(toolCallId) === tail) this.#queues.delete(toolCallId);
    });
    return answer;
  }

  /** Answers a call the gateway refuses itself, before the port is asked; the span says so. */
  #refuse(span: ToolCallSpan, code: GatewayErrorCode, message: string): Promise<CallToolResult> {
    span.refusedByGateway(code);
    span.end({ code });
    return Promise.resolve(this.#refused(code, message, span.toolName));
  }

  /**
   * The answer to a call refused before the port was asked. The invocation is told, so it counts the
   * refusal with the port's (no record, no history); `drain` waits for the note, which goes out
   * before the answer, so it is counted before the agent can end the invocation.
   */
  #refused(code: GatewayErrorCode, message: string, toolName: string): CallToolResult {
    const noted = noteRefusal(this.#port, { code, toolName }).catch(() => undefined);
    this.#inFlight.add(noted);
    void noted.then(() => this.#inFlight.delete(noted));
    return toolError(code, message);
  }

  /**
   * The client is gone (stdin closed, its session ended): every call still held for approval, and any
   * held later, expires now instead of waiting for a decision, so an approval given after the client
   * left never runs a tool nobody will read. Calls already approved or dispatched go on; `drain` waits.
   */
  releaseHolds(): void {
    this.#hungUp.abort();
  }

  /** Resolves once every call in flight is answered, every settle acknowledged and every stage report made. */
  async drain(): Promise<void> {
    while (this.#inFlight.size > 0 || this.#settles.busy) {
      await Promise.all([...this.#inFlight]);
      await this.#settles.drain();
    }
  }

  /** Stamps `replied` or `settled`; the later of the two reports the stages, after the answer is out. */
  #stamp(stamps: Stamps, at: "replied" | "settled"): void {
    stamps[at] = performance.now();
    const stages = this.#onStages && stagesOf(stamps);
    if (!stages) return;
    // On a later turn, so the log line never delays the answer it describes; drain waits for it.
    const reported = new Promise<void>((resolve) =>
      setImmediate(() => {
        this.#inFlight.delete(reported);
        resolve();
        this.#onStages?.(stages);
      }),
    );
    this.#inFlight.add(reported);
  }

  async #govern(
    call: ToolCall,
    entry: ToolMapEntry,
    toolCallId: string,
    span: ToolCallSpan,
    stamps: Stamps,
  ): Promise<CallToolResult> {
    const refuse = (code: GatewayErrorCode, message: string) => {
      span.refusedByGateway(code);
      return this.#refused(code, message, span.toolName);
    };
    if (this.#upstream.lost)
      return refuse(GatewayErrorCode.upstream_unavailable, "the upstream MCP server is gone");
    let available: boolean;
    try {
      available = await this.#upstream.hasTool(call.name);
    } catch {
      return refuse(GatewayErrorCode.upstream_unavailable, "the upstream MCP server did not list its tools");
    }
    if (!available)
      return refuse(
        GatewayErrorCode.tool_not_available,
        `the upstream MCP server has no tool '${call.name}'`,
      );
    const port = this.#port;
    const request = toolActionRequest(port, call.name, entry, toolCallId);
    const rejected = entry.argumentRule?.(call.arguments);
    // A call held for approval is admitted alone: it is dispatched only once an operator approves.
    const held =
      rejected === undefined &&
      entry.approval !== undefined &&
      entry.approval.when?.(call.arguments) === undefined;
    let answer: AdmitDispatchAnswer;
    let fingerprint: string;
    try {
      // One step and one durable write when the port can: the receipt comes only once the record
      // says dispatched. A client that already gave up, or arguments the map's rule rejects, are
      // admitted alone, so the action is withheld: admitted calls count against the claim's limits.
      const asked =
        call.signal.aborted || rejected !== undefined || held
          ? port.admit(request).then((decision) => ({ decision }))
          : admitAndDispatch(port, request);
      // Work the answer does not change is done while the port writes, not after.
      fingerprint = callFingerprint(call.name, call.arguments);
      answer = await asked;
    } catch (error) {
      return toolError(GatewayErrorCode.port_unavailable, describe(error));
    }
    stamps.admitted = performance.now();
    const { decision, receipt } = answer;
    if (!decision.admitted) {
      span.refused(decision.refusal, "admit");
      this.#log(`refused ${call.name}: ${decision.refusal}`);
      return toolError(decision.refusal, "the tool-action port refused this call; the tool was not run");
    }
    const id = decision.actionInstanceId;
    span.admitted(id);
    const known = this.#settled.get(id);
    if (known) {
      if (known.fingerprint === fingerprint) return known.answer;
      return toolError(
        GatewayErrorCode.request_conflict,
        "this request id was already used for a different call",
        {
          actionInstanceId: id,
        },
      );
    }
    const result =
      rejected !== undefined && !receipt
        ? this.#withhold(call, id, span, rejected)
        : held && !receipt && !call.signal.aborted
          ? this.#hold(call, entry, id, span, stamps)
          : this.#run(call, entry, id, span, stamps, receipt);
    this.#settled.set(id, { fingerprint, answer: result });
    return result;
  }

  /**
   * Withholds an admitted call whose arguments the map's rule rejects: cancelled before dispatch, with
   * the reason recorded. The agent gets the validator's message, which never quotes an argument value.
   */
  async #withhold(call: ToolCall, id: string, span: ToolCallSpan, message: string): Promise<CallToolResult> {
    span.outcome = { settlement: "withheld" };
    const ack = await withhold(this.#port, id, WithheldReason.arguments_rejected).catch(() => undefined);
    // Not withheld now, it still never runs: the invocation's close settles it withheld.
    if (!ack?.ok) this.#log(`withholding ${id} was not recorded: ${ack?.refusal ?? "port call failed"}`);
    this.#log(`withheld ${call.name.slice(0, 128)} (${id}): ${GatewayErrorCode.arguments_rejected}`);
    return toolError(GatewayErrorCode.arguments_rejected, `${message}; the tool was not run`, {
      actionInstanceId: id,
      settlement: "withheld",
    });
  }

  /**
   * Holds an admitted call for an operator (docs/guide/approvals.md): dispatched only once approved;
   * denied or expired, it is withheld and the upstream never sees it. While it waits, an agent that
   * asked for progress is told so every second. The agent never gets its arguments back.
   */
  async #hold(
    call: ToolCall,
    entry: ToolMapEntry,
    id: string,
    span: ToolCallSpan,
    stamps: Stamps,
  ): Promise<CallToolResult> {
    const timeoutSeconds = entry.approval?.timeoutSeconds ?? 300;
    this.#log(holdingLine(call.name.slice(0, 128), id, this.#storeUrl));
    let ticks = 0;
    const waiting = `waiting for an operator to approve ${id} (raes approve / raes deny)`;
    const tell = () => {
      ticks += 1;
      void call.progress?.(ticks, waiting).catch(() => undefined);
    };
    if (call.progress) tell();
    const timer = call.progress ? setInterval(tell, PROGRESS_EVERY_MS) : undefined;
    const signal = AbortSignal.any([call.signal, this.#hungUp.signal]);
    const answer = await awaitApproval(this.#port, id, { timeoutSeconds, signal })
      .catch(() => undefined)
      .finally(() => clearInterval(timer));
    if (answer?.ok && answer.decision === "approved") {
      this.#log(`approved ${id}`);
      return this.#run(call, entry, id, span, stamps, undefined);
    }
    const denied = answer?.ok === true && answer.decision === "denied";
    const reason = denied ? WithheldReason.approval_denied : WithheldReason.approval_expired;
    span.outcome = { settlement: "withheld" };
    const ack = await withhold(this.#port, id, reason).catch(() => undefined);
    if (!ack?.ok) this.#log(`withholding ${id} was not recorded: ${ack?.refusal ?? "port call failed"}`);
    this.#log(`withheld ${call.name.slice(0, 128)} (${id}): ${reason}`);
    const code = denied ? GatewayErrorCode.approval_denied : GatewayErrorCode.approval_expired;
    const message = denied
      ? "an operator denied this call; the tool was not run"
      : answer?.ok === false
        ? `the call could not be held for approval (${answer.refusal}); the tool was not run`
        : "no operator approved this call in time; the tool was not run";
    return toolError(code, message, { actionInstanceId: id, settlement: "withheld" });
  }

  async #run(
    call: ToolCall,
    entry: ToolMapEntry,
    id: string,
    span: ToolCallSpan,
    stamps: Stamps,
    /** The receipt of a dispatch already made with the admission. */
    dispatched: DispatchReceipt | undefined,
  ): Promise<CallToolResult> {
    const port = this.#port;
    if (!dispatched && call.signal.aborted) {
      await port.cancel(id).catch(() => undefined);
      return toolError(GatewayErrorCode.cancelled_before_dispatch, "cancelled before the tool ran", {
        actionInstanceId: id,
        settlement: "withheld",
      });
    }
    let receipt: DispatchReceipt;
    try {
      receipt = dispatched ?? (await port.dispatch(id));
    } catch (error) {
      return toolError(GatewayErrorCode.port_unavailable, describe(error), { actionInstanceId: id });
    }
    if (!receipt.accepted) {
      span.refused(receipt.refusal, "dispatch");
      this.#log(`dispatch of ${id} refused: ${receipt.refusal}`);
      await port.cancel(id).catch(() => undefined);
      return toolError(
        receipt.refusal,
        "the tool-action port did not accept dispatch; the tool was not run",
        { actionInstanceId: id },
      );
    }
    span.dispatched();
    stamps.dispatched = performance.now();
    // Cancelled while the dispatch was being written: the upstream never saw the call, so its
    // effects are known (none) and the action is not indeterminate.
    if (call.signal.aborted) {
      span.outcome = { settlement: "failed" };
      await this.#settles.complete(id, entry, "failed");
      this.#stamp(stamps, "settled");
      return toolError(GatewayErrorCode.cancelled_by_client, "cancelled before the tool ran", {
        actionInstanceId: id,
        settlement: "failed",
      });
    }
    let result: CallToolResult;
    try {
      // The invocation closing ends the wait: the close settles the action, and the agent hears it now.
      const closed = closedSignal(port);
      result = await this.#upstream.call(call.name, call.arguments, {
        timeoutMs: this.#timeoutMs,
        signal: call.signal,
        ...(closed ? { closed } : {}),
        meta: metaFromContext(span.context),
      });
    } catch (error) {
      stamps.answered = performance.now();
      if (!(error instanceof UpstreamCallError)) {
        // The upstream answered with a JSON-RPC error: it reported the call as failed.
        span.outcome = { settlement: "failed" };
        this.#settles.completeBehind(id, entry, "failed", () => this.#stamp(stamps, "settled"));
        throw error;
      }
      span.outcome = { settlement: "indeterminate" };
      const unknown = await this.#settles.reportUnknown(id, error);
      this.#stamp(stamps, "settled");
      return unknown;
    }
    stamps.answered = performance.now();
    const status = result.isError === true ? "failed" : "succeeded";
    span.outcome = { settlement: status };
    this.#settles.completeBehind(id, entry, status, () => this.#stamp(stamps, "settled"));
    return result;
  }
}

/**
 * The log line of a call held for approval: with the runtime's store known, the two commands that
 * decide it, runnable as printed; without it (a gateway on a port socket), no command is printed,
 * because one without the runtime's `--store` would decide nothing.
 */
export function holdingLine(tool: string, id: string, storeUrl: string | undefined): string {
  if (storeUrl === undefined)
    return `holding ${tool} (${id}) for approval: decide it with raes approve or raes deny on the runtime's store`;
  const c = approvalCommands(id, storeUrl);
  return `holding ${tool} (${id}) for approval: ${c.approve}  (or: ${c.deny})`;
}
