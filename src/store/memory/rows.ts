/** The key of a scheduler row: one per (participant, policy). */
export function schedulerKey(participantAddress: string, policyAddress: string): string {
  return `${participantAddress}\u0000${policyAddress}`;
}

/** The key that makes a tool call unique within its invocation. */
export function toolCallKey(invocationId: string, toolCallId: string): string {
  return `${invocationId}\u0000${toolCallId}`;
}
