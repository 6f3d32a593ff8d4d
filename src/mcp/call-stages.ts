/**
 * Milliseconds one forwarded `tools/call` spent in each stage. `admit + dispatch + upstream + reply`
 * is `total`, the handler's time up to the client's answer; `settle` runs from the upstream's answer
 * to the port's acknowledgement of the outcome, mostly behind the client's answer.
 */
export interface CallStages {
  /** Port `admit`, the durable claim included; with the dispatch too when both were one step. */
  readonly admit: number;
  /** Port `dispatch`, the durable dispatch record included; about 0 when it was one step with the admission. */
  readonly dispatch: number;
  readonly upstream: number;
  /** From the upstream's answer to the client's: about 0 unless the answer waited for its settlement. */
  readonly reply: number;
  /** Port `complete` or `reportUnknown`, from the upstream's answer to the port's. */
  readonly settle: number;
  readonly total: number;
}

/** performance.now() at the start of one call and as each stage ended. */
export interface Stamps {
  readonly start: number;
  admitted?: number;
  dispatched?: number;
  answered?: number;
  /** The handler answered the client. */
  replied?: number;
  /** The port acknowledged the outcome (or refused it). */
  settled?: number;
}

/** The stage times of a call that reached the upstream, once it is answered and settled; undefined for any other. */
export function stagesOf(stamps: Stamps): CallStages | undefined {
  const { start, admitted, dispatched, answered, replied, settled } = stamps;
  if (
    admitted === undefined ||
    dispatched === undefined ||
    answered === undefined ||
    replied === undefined ||
    settled === undefined
  )
    return undefined;
  return {
    admit: admitted - start,
    dispatch: dispatched - admitted,
    upstream: answered - dispatched,
    reply: replied - answered,
    settle: settled - answered,
    total: replied - start,
  };
}

/** One log line: `timing admit=0.412 dispatch=… upstream=… reply=… settle=… total=…` (ms). */
export function stagesLine(stages: CallStages): string {
  const ms = (n: number) => n.toFixed(3);
  return `timing admit=${ms(stages.admit)} dispatch=${ms(stages.dispatch)} upstream=${ms(stages.upstream)} reply=${ms(stages.reply)} settle=${ms(stages.settle)} total=${ms(stages.total)}`;
}
