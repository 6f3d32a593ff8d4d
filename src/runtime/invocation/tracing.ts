import {
  type Attributes,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type {
  ParticipantToolActionRefusal,
  PortCall,
  RefusalNote,
  ToolActionObserver,
} from "../../port/index.js";
import { MAX_REFUSED_CALLS, type RefusedCall, TRACER_NAME, TraceName } from "../../records/index.js";
import type { InvocationRecord, ToolActionRecord } from "../../store/index.js";

const propagator = new W3CTraceContextPropagator();

function invocationAttributes(invocation: InvocationRecord): Attributes {
  return {
    "raes.invocation.id": invocation.id,
    "raes.participant.address": invocation.participantAddress,
    "raes.policy.address": invocation.policyAddress,
    "raes.action_contract.address": invocation.actionContractAddress,
    "raes.observation_boundary.address": invocation.observationBoundaryAddress,
    "raes.episode.id": invocation.episodeId,
    "raes.invocation.ordinal": invocation.ordinal,
  };
}

function toolAttributes(record: ToolActionRecord): Attributes {
  const { request } = record;
  return {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": request.toolAffordanceAddress,
    "gen_ai.tool.call.id": record.toolCallId,
    "raes.tool_affordance.address": request.toolAffordanceAddress,
    "raes.tool_action.id": record.id,
    "raes.invocation.id": record.invocationId,
    "raes.participant.address": record.participantAddress,
    "raes.action_contract.address": request.actionContractAddress,
    "raes.observation_boundary.address": request.observationBoundaryAddress,
    "raes.target.addresses": [...request.targetAddresses],
    "raes.tool_action.ordinal": record.admissionOrdinal,
  };
}

/**
 * One invocation's observer: the invocation span and a child `execute_tool` span per tool action,
 * open from admission to settlement, and the refusal counts committed with the close. Only ids,
 * addresses, codes and settlements are recorded.
 */
export class InvocationTrace implements ToolActionObserver {
  readonly #span: Span;
  readonly #actions = new Map<string, Span>();
  readonly #refusals = new Map<string, number>();
  readonly #refusedCalls: RefusedCall[] = [];
  readonly #now: () => string;
  readonly #health: Attributes;

  /**
   * `serviceHealth`: RAES's health of the policy's execution service, as `raes.service.health` on the
   * invocation's span and each of its tool actions' spans, so a query for degraded work finds both.
   */
  constructor(invocation: InvocationRecord, now: () => string, serviceHealth?: string) {
    this.#now = now;
    this.#health = serviceHealth === undefined ? {} : { "raes.service.health": serviceHealth };
    const tracer = trace.getTracer(TRACER_NAME);
    this.#span = tracer.startSpan(`invoke_agent ${invocation.participantAddress}`, {
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": invocation.participantAddress,
        ...invocationAttributes(invocation),
        ...this.#health,
      },
    });
  }

  /** The invocation span's W3C trace context for the harness; nothing when no tracer records it. */
  control(): { readonly traceContext?: Readonly<Record<string, string>> } {
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, this.#span), carrier, defaultTextMapSetter);
    return carrier.traceparent === undefined ? {} : { traceContext: carrier };
  }

  /**
   * Starts the tool action's span as a child of the invocation's. An invocation span nobody records
   * (no tracer installed, or sampled out) gets no children: building them cost each claim ~10 µs.
   * An action the MCP gateway admitted (its request names the MCP tool) gets none either: the
   * gateway's `tools/call` span is that call's one `execute_tool` span.
   */
  admitted(record: ToolActionRecord): void {
    if (!this.#span.isRecording() || record.request.toolName !== undefined) return;
    const parent = trace.setSpan(ROOT_CONTEXT, this.#span);
    const span = trace
      .getTracer(TRACER_NAME)
      .startSpan(
        `execute_tool ${record.request.toolAffordanceAddress}`,
        { attributes: { ...toolAttributes(record), ...this.#health } },
        parent,
      );
    this.#actions.set(record.id, span);
  }

  /** Marks the committed dispatch. */
  dispatched(record: ToolActionRecord): void {
    this.#actions.get(record.id)?.addEvent(TraceName.dispatch);
  }

  /** Ends the tool action's span with its settlement. */
  settled(record: ToolActionRecord): void {
    const span = this.#actions.get(record.id);
    if (!span) return;
    this.#actions.delete(record.id);
    if (record.settlement) span.setAttribute("raes.tool_action.settlement", record.settlement);
    if (record.failureClass) span.setAttribute("error.type", record.failureClass);
    if (record.settlement === "failed" || record.settlement === "indeterminate") {
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }

  /** Records a refusal on the action's span when it named a live one, else on the invocation's. */
  refused(
    refusal: ParticipantToolActionRefusal,
    call: PortCall,
    actionInstanceId: string | undefined,
    tool?: string,
  ): void {
    const attributes: Attributes = { "raes.refusal.code": refusal, "raes.port.call": call };
    if (actionInstanceId) attributes["raes.tool_action.id"] = actionInstanceId;
    const target = (actionInstanceId && this.#actions.get(actionInstanceId)) || this.#span;
    target.addEvent(TraceName.refusal, attributes);
    this.#count(refusal, call, tool);
  }

  /**
   * Counts a call its caller refused before asking the port (an MCP gateway's own refusal) with the
   * port's refusals, and records it on the invocation span.
   */
  noted(note: RefusalNote): void {
    this.#span.addEvent(TraceName.refusal, {
      "raes.refusal.code": note.code,
      "raes.refused_by": "gateway",
      ...(note.toolName === undefined ? {} : { "gen_ai.tool.name": note.toolName }),
    });
    this.#count(note.code, "gateway", note.toolName);
  }

  /** Counts a refusal; the first ones keep their time and tool for the timeline. */
  #count(code: string, call: string, tool: string | undefined): void {
    this.#refusals.set(code, (this.#refusals.get(code) ?? 0) + 1);
    if (this.#refusedCalls.length < MAX_REFUSED_CALLS)
      this.#refusedCalls.push({ code, at: this.#now(), call, ...(tool === undefined ? {} : { tool }) });
  }

  /** The refusal counts per code so far, to commit with the invocation; nothing when none. */
  refusals(): Pick<InvocationRecord, "refusals" | "refusedCalls"> {
    if (this.#refusals.size === 0) return {};
    return {
      refusals: Object.fromEntries([...this.#refusals].sort(([a], [b]) => (a < b ? -1 : 1))),
      refusedCalls: [...this.#refusedCalls],
    };
  }

  /**
   * The v3 resource outcome on the invocation span: `raes.resource.result` and, per budget,
   * `raes.resource.reserved.<budget>` and `raes.resource.measured.<budget>` (the committed vector).
   */
  resources(
    result: string,
    reserved: Readonly<Record<string, number>>,
    measured: Readonly<Record<string, number>> | undefined,
  ): void {
    this.#span.setAttribute("raes.resource.result", result);
    for (const [budget, n] of Object.entries(reserved))
      this.#span.setAttribute(`raes.resource.reserved.${budget}`, n);
    for (const [budget, n] of Object.entries(measured ?? {}))
      this.#span.setAttribute(`raes.resource.measured.${budget}`, n);
  }

  /** Ends the invocation span once its close is committed (or failed to commit). */
  end(state: string, outerStatus: string | undefined, error?: unknown): void {
    for (const span of this.#actions.values()) span.end();
    this.#actions.clear();
    this.#span.setAttribute("raes.invocation.state", state);
    if (outerStatus !== undefined) this.#span.setAttribute("raes.outer.status", outerStatus);
    if (error !== undefined || state === "failed") this.#span.setStatus({ code: SpanStatusCode.ERROR });
    this.#span.end();
  }
}
