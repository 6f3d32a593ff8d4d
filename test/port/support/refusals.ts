import assert from "node:assert/strict";
import type { ControlPlaneStore, InvocationToolActionPort } from "../../../src/index.js";
import { governedCall } from "../../helpers/tool-requests.js";

/**
 * Runs the seed harness flow for `request` and asserts the admit is refused with `code`, the tool
 * never ran and the store holds exactly the records it held before.
 */
export async function expectRefusedAdmit(
  port: InvocationToolActionPort,
  store: ControlPlaneStore,
  request: unknown,
  code: string,
  message?: string,
): Promise<void> {
  const invocationId = port.invocationActionInstanceId;
  const before = await store.listToolActions({ invocationId });
  let nativeCalls = 0;
  const got = await governedCall(port, request, () => {
    nativeCalls += 1;
  });
  assert.equal(got, code, message);
  assert.equal(nativeCalls, 0, `${message ?? code}: a refusal makes no native call`);
  assert.deepEqual(
    await store.listToolActions({ invocationId }),
    before,
    `${message ?? code}: no record added or changed`,
  );
}

/** Asserts an admit is admitted and returns the action id. */
export async function expectAdmitted(port: InvocationToolActionPort, request: unknown): Promise<string> {
  const decision = await port.admit(request as never);
  assert.ok(decision.admitted, `expected admitted, got ${JSON.stringify(decision)}`);
  return decision.actionInstanceId;
}
