import type { ParticipantActionRequest, ParticipantActionResult } from "../../src/index.js";
import type {
  InvocationToolActionPort,
  ParticipantToolActionOutcome,
  ParticipantToolActionRequest,
  ToolActionPortIdentity,
} from "../../src/port/index.js";
import { EXAMPLE } from "./example.js";

/** A valid request for the example's portal-client affordance, as the seed harness builds it. */
export function requestFor(
  port: ToolActionPortIdentity,
  toolCallId: string,
  overrides: Partial<Record<keyof ParticipantToolActionRequest, unknown>> & Record<string, unknown> = {},
): ParticipantToolActionRequest {
  return {
    toolCallId,
    invocationActionInstanceId: port.invocationActionInstanceId,
    participantAddress: port.participantAddress,
    episodeId: port.episodeId,
    participantImplementationRef: port.participantImplementationRef,
    toolAffordanceAddress: EXAMPLE.affordance,
    actionContractAddress: EXAMPLE.action,
    observationBoundaryAddress: EXAMPLE.boundary,
    targetAddresses: [EXAMPLE.portal],
    executionScopeRef: port.executionScopeRef,
    executionGeneration: port.executionGeneration,
    ...overrides,
  } as ParticipantToolActionRequest;
}

/** A valid outcome for an admitted action of the example contract. */
export function outcomeFor(
  port: ToolActionPortIdentity,
  actionInstanceId: string,
  overrides: Partial<Record<keyof ParticipantToolActionOutcome, unknown>> = {},
): ParticipantToolActionOutcome {
  return {
    status: "succeeded",
    participantAddress: port.participantAddress,
    episodeId: port.episodeId,
    actionInstanceId,
    actionContractAddress: EXAMPLE.action,
    observationPoint: port.observationPoint,
    ...overrides,
  } as ParticipantToolActionOutcome;
}

/** The harness flow of docs/design.md §5: the tool runs only after an admitted decision and an accepted receipt. */
export async function governedCall(
  port: InvocationToolActionPort,
  request: unknown,
  runTool: () => void,
): Promise<string> {
  const decision = await port.admit(request as ParticipantToolActionRequest);
  if (!decision.admitted) return decision.refusal;
  const receipt = await port.dispatch(decision.actionInstanceId);
  if (!receipt.accepted) return receipt.refusal;
  runTool();
  const ack = await port.complete(decision.actionInstanceId, outcomeFor(port, decision.actionInstanceId));
  return ack.ok ? "succeeded" : ack.refusal;
}

/** Admits, dispatches and completes one call that must succeed; throws naming any refusal. */
export async function oneToolCall(port: InvocationToolActionPort, toolCallId: string): Promise<string> {
  const decision = await port.admit(requestFor(port, toolCallId));
  if (!decision.admitted) throw new Error(`refused: ${decision.refusal}`);
  const receipt = await port.dispatch(decision.actionInstanceId);
  if (!receipt.accepted) throw new Error(`not dispatched: ${receipt.refusal}`);
  const ack = await port.complete(decision.actionInstanceId, outcomeFor(port, decision.actionInstanceId));
  if (!ack.ok) throw new Error(`not completed: ${ack.refusal}`);
  return decision.actionInstanceId;
}

/** The code a port answer carries: the refusal, or what success is called for that call. */
export function codeOf(answer: {
  admitted?: boolean;
  accepted?: boolean;
  ok?: boolean;
  refusal?: string;
}): string {
  if (answer.refusal !== undefined) return answer.refusal;
  if (answer.admitted === true) return "admitted";
  if (answer.accepted === true) return "accepted";
  return "ok";
}

/** A valid succeeded outer result for the request, built without hashing: a harness that costs nothing. */
export function succeededResult(
  request: ParticipantActionRequest,
  postStateDigest: string,
): ParticipantActionResult {
  return {
    status: "succeeded",
    participantAddress: request.participantAddress,
    episodeId: request.episodeId,
    actionInstanceId: request.actionInstanceId,
    actionContractAddress: request.actionContractAddress,
    observationPoint: request.observationPoint,
    postStateDigest,
  };
}
