/** Milliseconds one forwarded `tools/call` spent in each stage, from the handler's start to the answer. */
export interface CallStages {
  /** Port `admit`, the durable claim included; with the dispatch too when both were one step. */
  readonly admit: number;
  /** Port `dispatch`, the durable dispatch record included; about 0 when it was one step with the admission. */
  readonly dispatch: number;
  readonly upstream: number;
  /** Port `complete` or `reportUnknown`. */
  readonly settle: number;
  readonly total: number;
}

/** performance.now() at the start of one call and as each stage ended. */
export interface Stamps {
  readonly start: number;
  admitted?: number;
  dispatched?: number;
  answered?: number;
}

/** The stage times of a call that reached the upstream, measured up to now; undefined for any other. */
export function stagesOf(stamps: Stamps): CallStages | undefined {
  const { start, admitted, dispatched, answered } = stamps;
  if (admitted === undefined || dispatched === undefined || answered === undefined) return undefined;
  const end = performance.now();
  return {
    admit: admitted - start,
    dispatch: dispatched - admitted,
    upstream: answered - dispatched,
    settle: end - answered,
    total: end - start,
  };
}

/** One log line: `timing admit=0.412 dispatch=… upstream=… settle=… total=…` (ms). */
export function stagesLine(stages: CallStages): string {
  const ms = (n: number) => n.toFixed(3);
  return `timing admit=${ms(stages.admit)} dispatch=${ms(stages.dispatch)} upstream=${ms(stages.upstream)} settle=${ms(stages.settle)} total=${ms(stages.total)}`;
}
