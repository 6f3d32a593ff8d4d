import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type ControlPlaneStore,
  type InvocationSummary,
  type InvocationToolActionPort,
  MemoryControlPlaneStore,
  RuntimeManager,
} from "../../src/index.js";
import { exampleManifest, modelStartingAt, ROOT } from "../helpers/example.js";
import { codeOf, outcomeFor, requestFor } from "../helpers/tool-requests.js";
import { ScriptedRuntime } from "./support/invocation.js";

/** A real store that logs every method called on it. */
function recording(inner: ControlPlaneStore): { store: ControlPlaneStore; calls: string[] } {
  const calls: string[] = [];
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return value.apply(target, args);
      };
    },
  });
  return { store, calls };
}

const MANAGER_METHODS = [
  "step",
  "pause",
  "resume",
  "reset",
  "resumeParticipant",
  "getOperation",
  "history",
  "listEvents",
  "schedulers",
  "close",
] as const;

/** Counts calls to the manager's public methods on this instance, passing them through. */
function countCalls(manager: RuntimeManager): string[] {
  const calls: string[] = [];
  for (const name of MANAGER_METHODS) {
    const original = (manager[name] as (...args: unknown[]) => unknown).bind(manager);
    Object.defineProperty(manager, name, {
      value: (...args: unknown[]) => {
        calls.push(name);
        return original(...args);
      },
    });
  }
  return calls;
}

describe("the port never calls the manager", () => {
  it("works from outside admitAction while step() is awaited and pause() is queued behind it", async () => {
    const { store, calls: storeCalls } = recording(new MemoryControlPlaneStore());
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: (port: InvocationToolActionPort) => void = () => undefined;
    const open = new Promise<InvocationToolActionPort>((resolve) => {
      entered = resolve;
    });
    const runtime = new ScriptedRuntime(async (port) => {
      entered(port);
      await released;
    });
    const closedSummaries: InvocationSummary[] = [];
    const refusals: string[] = [];
    const manager = await RuntimeManager.open({
      model: modelStartingAt(10),
      manifest: exampleManifest(),
      runtime,
      store,
      observer: {
        invocationClosed: (summary) => closedSummaries.push(summary),
        toolActionRefused: (refusal) => refusals.push(refusal),
      },
    });
    const schedulersBefore = JSON.stringify(manager.schedulers());
    const managerCalls = countCalls(manager);
    try {
      const stepping = manager.step(1);
      const port = await open;
      let pauseSettled = false;
      const pausing = manager.pause().finally(() => {
        pauseSettled = true;
      });
      managerCalls.length = 0;
      storeCalls.length = 0;

      const [a, b] = await Promise.all([
        port.admit(requestFor(port, "a")),
        port.admit(requestFor(port, "b")),
      ]);
      assert.ok(a.admitted && b.admitted);
      const answers = await Promise.all([
        port.admit(requestFor(port, "a", { targetAddresses: ["provision.node.wazuh-manager"] })),
        port.dispatch(a.actionInstanceId),
        port.cancel(b.actionInstanceId),
        port.admit({ ...requestFor(port, "c"), arguments: {} } as never),
      ]);
      assert.deepEqual(answers.map(codeOf), ["request_conflict", "accepted", "ok", "request_invalid"]);
      const done = await port.complete(a.actionInstanceId, outcomeFor(port, a.actionInstanceId));
      assert.equal(codeOf(done), "ok");

      assert.deepEqual(managerCalls, [], "no manager method was reached from the port");
      assert.deepEqual(storeCalls, [
        "insertToolAction",
        "insertToolAction",
        "updateToolAction",
        "updateToolAction",
        "updateToolAction",
      ]);
      assert.equal(closedSummaries.length, 0, "the invocation has not closed");
      assert.deepEqual(
        [...refusals].sort(),
        ["request_conflict", "request_invalid"],
        "only the port's refusals were observed",
      );
      assert.equal(pauseSettled, false, "the manager is still inside step(); pause() waits behind it");

      release();
      const { invocations } = await stepping;
      await pausing;
      assert.equal(invocations.length, 1);
      assert.equal(closedSummaries.length, 1);
      assert.deepEqual(
        closedSummaries[0]?.toolActions.map((t) => t.settlement),
        ["succeeded", "withheld"],
      );
      assert.notEqual(
        JSON.stringify(manager.schedulers()),
        schedulersBefore,
        "the manager moved only at close",
      );
      assert.equal(codeOf(await port.admit(requestFor(port, "d"))), "invocation_closed");
    } finally {
      release();
      await manager.close();
    }
  });

  it("src/port imports nothing from the runtime, so it has no way to reach the manager", () => {
    const dir = join(ROOT, "src", "port");
    const imports = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .flatMap((file) =>
        [...readFileSync(join(dir, file), "utf8").matchAll(/from\s+"([^"]+)"/g)].map(
          (m) => `${file}: ${m[1]}`,
        ),
      );
    assert.ok(
      imports.some((i) => i.startsWith("port.ts: ../records")),
      "the scan sees port.ts's imports",
    );
    for (const line of imports) assert.doesNotMatch(line, /: .*(runtime|manager)/);
  });
});
