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

/**
 * The gateway's `execute_tool` span for one MCP `tools/call`: a child of the span the client's
 * `_meta.traceparent` names, and the parent the upstream is told about. Only names, ids, codes and
 * settlements are recorded, never arguments or results.
 */
export class ToolCallSpan {
  readonly #span: Span;
  /** The context to pass upstream: the client's trace continued by this span. */
  readonly context: Context;
  /** The settlement the gateway recorded, once it recorded one. */
  outcome: { readonly settlement?: string } = {};

  constructor(toolName: string, meta: unknown, attributes: Attributes) {
    const parent = contextFromMeta(meta);
    this.#span = trace.getTracer(TRACER_NAME).startSpan(
      `execute_tool ${toolName}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": toolName,
          "mcp.method.name": "tools/call",
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

  /** Ends the span: with the settlement when the call reached one, else with the gateway's error code. */
  end(outcome: { readonly settlement?: string; readonly code?: string }): void {
    if (outcome.settlement) this.#span.setAttribute("raes.tool_action.settlement", outcome.settlement);
    if (outcome.code) this.#span.setAttribute("error.type", outcome.code);
    if (outcome.code || outcome.settlement === "failed" || outcome.settlement === "indeterminate")
      this.#span.setStatus({ code: SpanStatusCode.ERROR });
    this.#span.end();
  }
}
