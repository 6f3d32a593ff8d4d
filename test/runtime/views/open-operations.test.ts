import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type InvocationToolActionPort,
  type Operation,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  type ParticipantStatusView,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../../src/index.js";
import { EXAMPLE, exampleManifest, exampleModel, ROOT } from "../../helpers/example.js";
import { outcomeFor, requestFor } from "../../helpers/tool-requests.js";

// RAES's answers, recorded by tools/record-raes-views.py (RAES's `_open_participant_operation_refs`).
const RAES = JSON.parse(
  readFileSync(join(ROOT, "test", "fixtures", "raes-views", "open-operations.json"), "utf8"),
) as {
  readonly operations: readonly {
    operation_id: string;
    domain: string;
    state: string;
    changed_addresses: string[];
  }[];
  readonly open_operation_refs: Readonly<Record<string, readonly string[]>>;
  readonly operation_status: Record<string, unknown>;
  readonly operation_states: readonly string[];
  readonly runtime_domains: readonly string[];
};

/** RAES's rule: participant-domain operations, accepted or running, that change the participant; ids sorted. */
function raesOpenRefs(
  operations: readonly { id: string; domain: string; state: string; changed: readonly string[] }[],
  participant: string,
): string[] {
  return operations
    .filter(
      (o) =>
        o.domain === "participant" &&
        (o.state === "accepted" || o.state === "running") &&
        o.changed.includes(participant),
    )
    .map((o) => o.id)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Mid-invocation, with one tool action dispatched and one admitted, reads the status view and the operations. */
class PeekingRuntime extends ReferenceAutonomousParticipantRuntime {
  manager: RuntimeManager | undefined;
  seen: { view: ParticipantStatusView | undefined; operations: (Operation | undefined)[] } | undefined;
  readonly ports: InvocationToolActionPort[] = [];
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.ports.push(port);
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.ports.find((p) => p.invocationActionInstanceId === request.actionInstanceId);
    if (port && this.manager && !this.seen) {
      const first = await port.admit(requestFor(port, "call-a"));
      const second = await port.admit(requestFor(port, "call-b"));
      if (!first.admitted || !second.admitted) throw new Error("not admitted");
      await port.dispatch(first.actionInstanceId);
      const view = await this.manager.getParticipantStatusView(EXAMPLE.participant);
      const ids = [request.actionInstanceId, first.actionInstanceId, second.actionInstanceId];
      this.seen = { view, operations: await Promise.all(ids.map((id) => this.manager?.getOperation(id))) };
      await port.complete(first.actionInstanceId, outcomeFor(port, first.actionInstanceId));
      await port.dispatch(second.actionInstanceId);
      await port.complete(second.actionInstanceId, outcomeFor(port, second.actionInstanceId));
    }
    return this.nativeExecution(request, snapshot, episodeId, { status: "succeeded" });
  }
}

describe("open_operation_refs and operation status against RAES", () => {
  it("the recorded operations give RAES's recorded open refs under the rule raes-ts applies", () => {
    const operations = RAES.operations.map((o) => ({
      id: o.operation_id,
      domain: o.domain,
      state: o.state,
      changed: o.changed_addresses,
    }));
    for (const [participant, refs] of Object.entries(RAES.open_operation_refs))
      assert.deepEqual(raesOpenRefs(operations, participant), refs, participant);
  });

  it("mid-invocation, the status view lists the running invocation and its open tool actions as RAES's rule does", async () => {
    const runtime = new PeekingRuntime();
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: exampleManifest(),
      runtime,
    });
    runtime.manager = manager;
    await manager.step(1);
    assert.ok(runtime.seen?.view);
    const operations = runtime.seen.operations.map((o) => {
      assert.ok(o);
      return { id: o.id, domain: o.domain, state: o.state, changed: o.changedAddresses };
    });
    assert.deepEqual(
      operations.map((o) => o.state),
      ["running", "running", "accepted"],
    );
    const open = runtime.seen.view.open_operation_refs;
    assert.equal(open.length, 3);
    assert.deepEqual(open, raesOpenRefs(operations, EXAMPLE.participant));
    // Once the step is over, nothing is open.
    assert.deepEqual((await manager.getParticipantStatusView(EXAMPLE.participant))?.open_operation_refs, []);
    await manager.close();
  });

  it("getOperation carries RAES's domain, diagnostics and changed_addresses with RAES's value sets", async () => {
    const runtime = new PeekingRuntime();
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: exampleManifest(),
      runtime,
    });
    runtime.manager = manager;
    await manager.step(1);
    const id = runtime.seen?.operations[0]?.id as string;
    const op = await manager.getOperation(id);
    assert.ok(op);
    assert.equal(op.domain, RAES.operation_status.domain);
    assert.ok(RAES.runtime_domains.includes(op.domain));
    assert.deepEqual(op.changedAddresses, [EXAMPLE.participant]);
    assert.deepEqual(op.diagnostics, []);
    const keys = Object.keys(
      (RAES.operation_status.diagnostics as Record<string, unknown>[])[0] ?? {},
    ).sort();
    for (const child of runtime.seen?.operations.slice(1) ?? []) {
      const settled = await manager.getOperation(child?.id as string);
      assert.equal(settled?.state, "succeeded");
      assert.ok(RAES.operation_states.includes(settled?.state as string));
    }
    // A diagnostic has exactly RAES's fields.
    assert.deepEqual(keys, ["address", "code", "domain", "message", "severity"]);
    await manager.close();
  });
});
