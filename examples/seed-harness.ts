/**
 * The harness flow of docs/design.md §5, in TypeScript: every tool call is admitted and dispatched through the
 * invocation's port before the tool runs, then completed, or reported unknown when it times out.
 */
import {
  type InvocationToolActionPort,
  type NativeOutcome,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
} from "raes-ts";

/** Thrown by a tool that did not answer in time: its effects are unknown. */
export class ToolTimeoutError extends Error {}

/** Your agent: runs one turn, calling tools through the port it is given. */
export interface Harness {
  run(
    request: ParticipantActionRequest,
    toolPort: InvocationToolActionPort | undefined,
  ): Promise<NativeOutcome>;
}

/** A participant runtime that hands each invocation's port to the harness running it. */
export class HarnessRuntime extends ReferenceAutonomousParticipantRuntime {
  /** RAES's implementation selection: history names this runtime `participant-implementation:green-worker@1.0.0`. */
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" } as const;
  readonly #ports = new Map<string, InvocationToolActionPort>();
  readonly #harness: Harness;

  constructor(harness: Harness) {
    super();
    this.#harness = harness;
  }

  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#ports.set(port.invocationActionInstanceId, port);
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.#ports.get(request.actionInstanceId);
    this.#ports.delete(request.actionInstanceId);
    const outcome = await this.#harness.run(request, port);
    return this.nativeExecution(request, snapshot, episodeId, outcome);
  }
}

const PORTAL_CLIENT = "participant.behavior-specification.participant-behavior.tool-affordance.portal-client";
const PROBE = "participant.action-contract.probe-customer-portal-login";

/** Admits, dispatches and settles one MCP tool call; `runTool` runs only after an accepted receipt. */
export async function callTool(
  port: InvocationToolActionPort,
  mcpRequestId: string,
  runTool: () => Promise<boolean>,
): Promise<"refused" | "succeeded" | "failed" | "unknown"> {
  const decision = await port.admit({
    toolCallId: mcpRequestId,
    invocationActionInstanceId: port.invocationActionInstanceId,
    participantAddress: port.participantAddress,
    episodeId: port.episodeId,
    participantImplementationRef: port.participantImplementationRef,
    toolAffordanceAddress: PORTAL_CLIENT,
    actionContractAddress: PROBE,
    observationBoundaryAddress: "participant.observation-boundary.participant-view",
    targetAddresses: ["provision.node.customer-portal.service.http"],
    executionScopeRef: port.executionScopeRef,
    executionGeneration: port.executionGeneration,
  });
  if (!decision.admitted) return "refused"; // decision.refusal is a fixed code; do not run the tool.
  if (!(await port.dispatch(decision.actionInstanceId)).accepted) return "refused";
  let succeeded: boolean;
  try {
    succeeded = await runTool();
  } catch (error) {
    if (!(error instanceof ToolTimeoutError)) throw error;
    await port.reportUnknown(decision.actionInstanceId, "timeout");
    return "unknown";
  }
  await port.complete(decision.actionInstanceId, {
    status: succeeded ? "succeeded" : "failed",
    participantAddress: port.participantAddress,
    episodeId: port.episodeId,
    actionInstanceId: decision.actionInstanceId,
    actionContractAddress: PROBE,
    observationPoint: port.observationPoint,
  });
  return succeeded ? "succeeded" : "failed";
}
