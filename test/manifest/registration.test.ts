import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type BackendManifest,
  checkManifest,
  RegistrationError,
  RegistrationErrorCode,
  registerParticipantRuntime,
} from "../../src/manifest/index.js";
import { editedExample, exampleManifest, fixtureManifest, type Json } from "./fixtures.js";

function parsed(document: Json): BackendManifest {
  const { manifest } = checkManifest(document);
  assert.ok(manifest, "the manifest's shape must be sound for registration tests");
  return manifest;
}

const claiming = () => parsed(exampleManifest());
const notClaiming = () => parsed(editedExample((m) => delete m.participant_runtime.invocation_tool_actions));

class PlainRuntime {
  readonly admitted: string[] = [];
  admitAction(request: { actionInstanceId: string }) {
    this.admitted.push(request.actionInstanceId);
  }
}

class ToolActionRuntime extends PlainRuntime {
  readonly ports: unknown[] = [];
  attachInvocationToolActions(port: unknown) {
    this.ports.push(port);
  }
}

function assertRefused(run: () => unknown, messagePart: RegExp): void {
  assert.throws(run, (thrown: unknown) => {
    assert.ok(thrown instanceof RegistrationError);
    assert.equal(thrown.code, RegistrationErrorCode.target_contract_mismatch);
    assert.equal(thrown.code, "registry.target-contract-mismatch");
    assert.match(thrown.message, messagePart);
    return true;
  });
}

describe("registerParticipantRuntime", () => {
  it("accepts a claiming manifest with a runtime that can attach ports", () => {
    assert.deepEqual(registerParticipantRuntime(claiming(), new ToolActionRuntime()), {
      toolActionsClaimed: true,
    });
  });

  it("finds attachInvocationToolActions on the prototype chain", () => {
    class Derived extends ToolActionRuntime {}
    const runtime = Object.create(new Derived());
    assert.deepEqual(registerParticipantRuntime(claiming(), runtime), { toolActionsClaimed: true });
  });

  it("accepts a plain object runtime with own methods", () => {
    const runtime = { admitAction: () => undefined, attachInvocationToolActions: () => undefined };
    assert.deepEqual(registerParticipantRuntime(claiming(), runtime), { toolActionsClaimed: true });
  });

  it("accepts a non-claiming manifest without attachInvocationToolActions, and never claims ports", () => {
    assert.deepEqual(registerParticipantRuntime(notClaiming(), new PlainRuntime()), {
      toolActionsClaimed: false,
    });
    assert.deepEqual(registerParticipantRuntime(notClaiming(), new ToolActionRuntime()), {
      toolActionsClaimed: false,
    });
  });

  it("refuses a claiming manifest whose runtime has no attachInvocationToolActions", () => {
    assertRefused(
      () => registerParticipantRuntime(claiming(), new PlainRuntime()),
      /attachInvocationToolActions/,
    );
  });

  it("refuses a claiming manifest whose attachInvocationToolActions is not callable", () => {
    const runtime = Object.assign(new PlainRuntime(), { attachInvocationToolActions: "yes" });
    assertRefused(() => registerParticipantRuntime(claiming(), runtime), /attachInvocationToolActions/);
  });

  it("refuses when attachInvocationToolActions is a getter that throws", () => {
    const runtime = new PlainRuntime();
    Object.defineProperty(runtime, "attachInvocationToolActions", {
      get() {
        throw new Error("no");
      },
    });
    assertRefused(() => registerParticipantRuntime(claiming(), runtime), /attachInvocationToolActions/);
  });

  it("refuses a claim without autonomous execution support, even with a capable runtime", () => {
    const manifest = parsed(fixtureManifest("claim-without-autonomous.manifest.json"));
    assertRefused(
      () => registerParticipantRuntime(manifest, new ToolActionRuntime()),
      /manifest\.claim-requires-autonomous-execution/,
    );
  });

  it("refuses a claim while tool_affordances is unsupported, even with a capable runtime", () => {
    const manifest = parsed(
      editedExample((m) => {
        m.participant_runtime.feature_support[1].support_level = "unsupported";
      }),
    );
    assertRefused(
      () => registerParticipantRuntime(manifest, new ToolActionRuntime()),
      /manifest\.claim-tool-affordances-unsupported/,
    );
  });

  it("refuses a claim with invalid limits", () => {
    const manifest = parsed(
      editedExample(
        (m) => (m.participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation = 0),
      ),
    );
    assertRefused(
      () => registerParticipantRuntime(manifest, new ToolActionRuntime()),
      /manifest\.claim-limit-invalid/,
    );
  });

  it("refuses a runtime without a callable admitAction, claiming or not", () => {
    const attachOnly = { attachInvocationToolActions: () => undefined };
    assertRefused(() => registerParticipantRuntime(claiming(), attachOnly), /admitAction/);
    assertRefused(() => registerParticipantRuntime(notClaiming(), { admitAction: 1 }), /admitAction/);
    assertRefused(() => registerParticipantRuntime(notClaiming(), null), /admitAction/);
    assertRefused(() => registerParticipantRuntime(notClaiming(), "runtime"), /admitAction/);
  });
});
