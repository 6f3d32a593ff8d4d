import type {
  InvocationToolActionPort,
  ParticipantToolActionOutcome,
  ParticipantToolActionRequest,
} from "../port/index.js";
import { canonicalDigest } from "../records/index.js";
import type { ToolMapEntry } from "./map.js";

/** The port request for one MCP tool call: the port's identity, the map entry's addresses and the MCP tool name. */
export function toolActionRequest(
  port: InvocationToolActionPort,
  toolName: string,
  entry: ToolMapEntry,
  toolCallId: string,
): ParticipantToolActionRequest {
  return {
    toolCallId,
    invocationActionInstanceId: port.invocationActionInstanceId,
    participantAddress: port.participantAddress,
    episodeId: port.episodeId,
    participantImplementationRef: port.participantImplementationRef,
    toolAffordanceAddress: entry.toolAffordanceAddress,
    actionContractAddress: entry.actionContractAddress,
    observationBoundaryAddress: entry.observationBoundaryAddress,
    targetAddresses: entry.targetAddresses,
    executionScopeRef: port.executionScopeRef,
    executionGeneration: port.executionGeneration,
    toolName,
  };
}

/** Digest of tool name and arguments, to tell a retry from a reused request id. */
export function callFingerprint(name: string, args: Record<string, unknown> | undefined): string {
  return canonicalDigest({ name, arguments: args ?? null });
}

/** The outcome the gateway completes an action with: the port's identity, the map entry's contract and evidence. */
export function toolActionOutcome(
  port: InvocationToolActionPort,
  entry: ToolMapEntry,
  actionInstanceId: string,
  status: "succeeded" | "failed",
): ParticipantToolActionOutcome {
  return {
    status,
    participantAddress: port.participantAddress,
    episodeId: port.episodeId,
    actionInstanceId,
    actionContractAddress: entry.actionContractAddress,
    observationPoint: port.observationPoint,
    ...(entry.evidenceRefs.length > 0 ? { evidenceRefs: entry.evidenceRefs } : {}),
  };
}
