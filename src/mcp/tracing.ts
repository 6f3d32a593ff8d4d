import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { TRACER_NAME, TraceName } from "../records/index.js";

/** The `_meta` keys that carry W3C trace context in MCP (SEP-414, OpenTelemetry MCP conventions). */
export const TRACE_META_KEYS = ["traceparent", "tracestate"] as const;

/** W3C trace-context values are short; a longer one is not trace context and is ignored. */
const MAX_TRACE_VALUE = 512;
const propagator = new W3CTraceContextPropagator();
/** The longest tool name a span carries. */
const MAX_TOOL_NAME = 128;

/** The trace context a request's `_meta` carries, or the root context when it carries none. */
export function contextFromMeta(meta: unknown): Context {
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return ROOT_CONTEXT;
  const carrier: Record<string, string> = {};
  for (const key of TRACE_META_KEYS) {
    const value = Object.hasOwn(meta, key) ? (meta as Record<string, unknown>)[key] : undefined;
    if (typeof value === "string" && value.length <= MAX_TRACE_VALUE) carrier[key] = value;
  }
  return propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}

/** The `_meta` entries (`traceparent`, `tracestate`) that pass `context`'s span on; empty without one. */
export function metaFromContext(context: Context): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagator.inject(context, carrier, defaultTextMapSetter);
  return carrier;
}

/** What the MCP session says about a `tools/call`, for the server span's MCP attributes. */
export interface McpCallContext {
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number;
  /** The gateway's session id (the `Mcp-Session-Id` over HTTP). */
  readonly sessionId: string;
  /** The MCP protocol version negotiated at `initialize`, once known. */
  readonly protocolVersion?: string;
  /** `pipe` for stdio, `tcp` for Streamable HTTP (the OpenTelemetry MCP conventions' values). */
  readonly networkTransport?: "pipe" | "tcp";
}

/**
 * The gateway's server span for one MCP `tools/call`, named and attributed as the OpenTelemetry MCP
 * conventions name a server span (`tools/call <tool>`, `mcp.method.name`, `jsonrpc.request.id`,
 * `mcp.session.id`, `mcp.protocol.version`), and the governed call's one `execute_tool` span
 * (`gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`), with the tool affordance and
 * the tool action as attributes. It is a child of the span the client's `_meta.traceparent` names,
 * and the parent the upstream is told about. Only names, ids, codes and settlements are recorded,
 * never arguments or results.
 */
export class ToolCallSpan {
  readonly #span: Span;
  /** The context to pass upstream: the client's trace continued by this span. */
  readonly context: Context;
  /** The tool name the span carries (at most 128 characters of the call's). */
  readonly toolName: string;
  /** The settlement the gateway recorded, once it recorded one. */
  outcome: { readonly settlement?: string } = {};

  constructor(name: string, meta: unknown, mcp: McpCallContext, attributes: Attributes) {
    const parent = contextFromMeta(meta);
    // An unmapped name is the client's to choose; a span name is kept short.
    const toolName = name.slice(0, MAX_TOOL_NAME);
    this.toolName = toolName;
    this.#span = trace.getTracer(TRACER_NAME).startSpan(
      `tools/call ${toolName}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "mcp.method.name": "tools/call",
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": toolName,
          "jsonrpc.request.id": String(mcp.requestId),
          "mcp.session.id": mcp.sessionId,
          ...(mcp.protocolVersion === undefined ? {} : { "mcp.protocol.version": mcp.protocolVersion }),
          ...(mcp.networkTransport === undefined ? {} : { "network.transport": mcp.networkTransport }),
          ...attributes,
        },
      },
      parent,
    );
    this.context = trace.setSpan(parent, this.#span);
  }

  /** Names the tool action the port admitted. */
  admitted(actionInstanceId: string): void {
    this.#span.setAttribute("raes.tool_action.id", actionInstanceId);
  }

  /** Marks the accepted dispatch, just before the call goes upstream. */
  dispatched(): void {
    this.#span.addEvent(TraceName.dispatch);
  }

  /** Records a refusal by the port (admit or dispatch), with its code. */
  refused(code: string, call: "admit" | "dispatch"): void {
    this.#span.addEvent(TraceName.refusal, { "raes.refusal.code": code, "raes.port.call": call });
  }

  /** Records a refusal by the gateway itself, before the port was asked (`raes.refused_by` = `gateway`). */
  refusedByGateway(code: string): void {
    this.#span.addEvent(TraceName.refusal, { "raes.refusal.code": code, "raes.refused_by": "gateway" });
  }

  /**
   * Ends the span: with the settlement when the call reached one, else with the gateway's error code.
   * A tool result with `isError` and no code of the gateway's is `error.type` `tool_error`, as the
   * MCP conventions say.
   */
  end(outcome: { readonly settlement?: string; readonly code?: string; readonly toolError?: boolean }): void {
    if (outcome.settlement) this.#span.setAttribute("raes.tool_action.settlement", outcome.settlement);
    const errorType = outcome.code ?? (outcome.toolError ? "tool_error" : undefined);
    if (errorType) this.#span.setAttribute("error.type", errorType);
    if (errorType || outcome.settlement === "failed" || outcome.settlement === "indeterminate")
      this.#span.setStatus({ code: SpanStatusCode.ERROR });
    this.#span.end();
  }
}
