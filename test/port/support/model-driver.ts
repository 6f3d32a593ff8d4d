import type { ControlPlaneStore, InvocationToolActionPort } from "../../../src/index.js";
import { EXAMPLE } from "../../helpers/example.js";
import { codeOf, outcomeFor, requestFor } from "../../helpers/tool-requests.js";
import {
  type ModelAction,
  type Op,
  type OutcomeKind,
  permutations,
  type SpecModel,
  type Variant,
} from "./spec-model.js";

const WIDE = [EXAMPLE.portal, "provision.node.wazuh-manager"];

function requestOf(port: InvocationToolActionPort, call: string, variant: Variant): unknown {
  const base = requestFor(port, call);
  switch (variant) {
    case "base":
      return base;
    case "wide":
      return { ...base, targetAddresses: WIDE };
    case "malformed":
      return { ...base, arguments: { url: "http://portal/login" } };
    case "identity":
      return { ...base, episodeId: `${port.episodeId}-x` };
    case "generation":
      return { ...base, executionGeneration: port.executionGeneration + 1 };
    case "unbound":
      return { ...base, toolAffordanceAddress: `${EXAMPLE.affordance}-x` };
    case "target":
      return { ...base, targetAddresses: ["provision.node.customer-db"] };
  }
}

function outcomeOf(port: InvocationToolActionPort, id: string, kind: OutcomeKind): unknown {
  switch (kind) {
    case "succeeded":
    case "failed":
    case "partial_success":
      return outcomeFor(port, id, { status: kind });
    case "failed_declared_class":
      return outcomeFor(port, id, { status: "failed", failureClass: "target_unavailable" });
    case "succeeded_with_evidence":
      return outcomeFor(port, id, { evidenceRefs: ["content.participant-observation"] });
    case "foreign_point":
      return outcomeFor(port, id, { observationPoint: `${port.observationPoint}0` });
    case "hidden_evidence":
      return outcomeFor(port, id, { evidenceRefs: ["content.evaluator-notes"] });
    case "undeclared_class":
      return outcomeFor(port, id, { status: "failed", failureClass: "tired" });
    case "status_withheld":
      return outcomeFor(port, id, { status: "withheld" });
  }
}

/** Starts one port call for an op; the answer is its code, with the id for an admitted decision. */
export function fire(port: InvocationToolActionPort, op: Op): Promise<string> {
  const id = op.type === "admit" ? "" : `${port.invocationActionInstanceId}:tool=${op.ordinal}`;
  const answer = (() => {
    switch (op.type) {
      case "admit":
        return port.admit(requestOf(port, op.call, op.variant) as never);
      case "dispatch":
        return port.dispatch(id);
      case "complete":
        return port.complete(id, outcomeOf(port, id, op.outcome) as never);
      case "reportUnknown":
        return op.withReason ? port.reportUnknown(id, "timeout") : port.reportUnknown(id, undefined as never);
      case "cancel":
        return port.cancel(id);
    }
  })();
  return answer.then((a) => ("admitted" in a && a.admitted ? `admitted:${a.actionInstanceId}` : codeOf(a)));
}

/** The store's view of an invocation's tool actions, in the model's terms. */
export async function storedActions(store: ControlPlaneStore, invocationId: string): Promise<string> {
  const records = await store.listToolActions({ invocationId });
  return JSON.stringify(
    records.map((r) => [
      r.id,
      r.toolCallId,
      r.admissionOrdinal,
      r.phase,
      r.settlement ?? null,
      r.request.targetAddresses,
    ]),
  );
}

/** The same view computed from the model. */
export function modelActions(model: SpecModel): string {
  const targets = (a: ModelAction) => (a.variant === "wide" ? WIDE : [EXAMPLE.portal]);
  return JSON.stringify(
    model.actions.map((a) => [a.id, a.call, a.ordinal, a.phase, a.settlement ?? null, targets(a)]),
  );
}

/**
 * Finds an order of the concurrently fired ops that explains every observed answer and ends in the
 * state the store holds; that is the linearisation the port must have followed. Undefined when none.
 */
export function explain(
  model: SpecModel,
  ops: readonly Op[],
  observed: readonly string[],
  stored: string,
  thenClose: boolean,
): SpecModel | undefined {
  const indices = ops.map((_, i) => i);
  for (const order of permutations(indices)) {
    const candidate = model.clone();
    const fits = order.every((i) => {
      const op = ops[i];
      const got = observed[i] ?? "";
      if (!op) return false;
      const answer = candidate.answer(op);
      if (!answer.codes.includes(got)) return false;
      answer.apply();
      return true;
    });
    if (!fits) continue;
    if (thenClose) candidate.close();
    if (modelActions(candidate) === stored) return candidate;
  }
  return undefined;
}
