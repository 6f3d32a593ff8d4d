/** The OpenTelemetry instrumentation scope name; spans are no-ops unless the application installs an SDK. */
export const TRACER_NAME = "raes-ts";

/** Span event names shared by the runtime's and the gateway's spans. */
export const TraceName = {
  /** The span event recorded when dispatch of a tool action is committed. */
  dispatch: "raes.tool_action.dispatched",
  /** The span event recorded for each refused port call. */
  refusal: "raes.tool_action.refused",
} as const;
/** A span event name. */
export type TraceName = (typeof TraceName)[keyof typeof TraceName];
