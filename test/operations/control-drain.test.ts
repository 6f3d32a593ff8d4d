import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../src/index.js";
import { controlParticipant } from "../../src/operations/index.js";
import { readConsoleState } from "../../src/serve/index.js";
import { controlledManifest, EXAMPLE, modelWithAttempts } from "../helpers/example.js";
import { HeldRuntime } from "./held-runtime.js";

const P = EXAMPLE.participant;

const chains = {
  observe: () => undefined,
  participant: () => ({ state: "unchecked" }),
  decisions: () => ({ state: "unchecked" }),
  store: () => ({ state: "unchecked" }),
} as unknown as Parameters<typeof readConsoleState>[1]["chains"];

async function heldInvocation() {
  const runtime = new HeldRuntime();
  const manager = await RuntimeManager.open({
    model: modelWithAttempts(1000),
    manifest: controlledManifest(),
    runtime,
  });
  runtime.holding = true;
  const step = manager.step(1);
  await runtime.called;
  return { runtime, manager, step };
}

describe("a drain that waits for an open invocation reads back RAES's in-between lifecycle", () => {
  it("is `draining` (not accepting, not ready, desired quiescent) while it waits, in the readback and the console, then quiescent", async () => {
    const { runtime, manager, step } = await heldInvocation();
    const seen: unknown[] = [];
    const outcome = await controlParticipant(
      manager.store,
      { participant: P, action: "drain", operator: "alice" },
      {
        sleep: async () => {
          const s = await manager.participantExecutionState(P);
          const console = await readConsoleState(manager.store, {
            storeLabel: "memory:",
            operator: "alice",
            chains,
          });
          const shown = console.participants.items.find((p) => p.address === P);
          seen.push({
            observed: s.observed_lifecycle,
            desired: s.desired_lifecycle,
            draining: s.draining,
            accepting: s.accepting_new_work,
            readiness: s.readiness,
            inFlight: s.in_flight,
            quiescent: s.quiescent,
            console: shown?.service?.lifecycle,
            consoleActions: shown?.actions.includes("execution-drain"),
          });
          runtime.release();
          await step;
        },
      },
    );
    assert.deepEqual(seen, [
      {
        observed: "draining",
        desired: "quiescent",
        draining: true,
        accepting: false,
        readiness: "not_ready",
        inFlight: 1,
        quiescent: false,
        console: "draining",
        consoleActions: true,
      },
    ]);
    assert.ok(outcome.ok);
    assert.equal(outcome.service.observed_lifecycle, "quiescent");
    assert.equal(outcome.service.draining, false);
    assert.equal((await manager.participantExecutionState(P)).observed_lifecycle, "quiescent");
    // One operator decision: the drain, written with its end.
    assert.equal((await manager.store.getDecisionHead()).decisions, 1);
    await manager.close();
  });

  it("a drain that times out puts the service back as it was and records no decision", async () => {
    const { runtime, manager, step } = await heldInvocation();
    const before = (await manager.participantServices())[0]?.service;
    // The drain's clock runs with the readback's, so its stored deadline is in the readback's future.
    const start = Date.now();
    let at = 0;
    const outcome = await controlParticipant(
      manager.store,
      { participant: P, action: "drain", drainTimeoutMs: 1 },
      {
        now: () => new Date(start + at),
        sleep: async () => {
          assert.equal((await manager.participantExecutionState(P)).observed_lifecycle, "draining");
          at += 10;
        },
      },
    );
    assert.equal(outcome.ok, false);
    assert.equal(!outcome.ok && outcome.code, "runtime.participant-execution-drain-timeout");
    assert.deepEqual((await manager.participantServices())[0]?.service, before);
    assert.equal((await manager.store.getDecisionHead()).decisions, 0);
    runtime.release();
    await step;
    assert.equal((await manager.step(1)).invocations.length, 1, "the participant runs on");
    await manager.close();
  });

  it("a drain that times out on invocations whose runtime is gone says so, and that a raes run's recovery settles them", async () => {
    const { runtime, manager, step } = await heldInvocation();
    const live = await controlParticipant(manager.store, {
      participant: P,
      action: "drain",
      drainTimeoutMs: 1,
    });
    assert.equal(!live.ok && live.ownerGone, undefined, "a live owner: the plain timeout");
    const lease = await manager.store.getLease(P);
    assert.ok(lease);
    await manager.store.releaseLease(lease); // as a runtime killed mid-invocation leaves it, once its lease is gone
    const outcome = await controlParticipant(manager.store, {
      participant: P,
      action: "drain",
      drainTimeoutMs: 1,
    });
    assert.equal(!outcome.ok && outcome.code, "runtime.participant-execution-drain-timeout");
    assert.equal(!outcome.ok && outcome.ownerGone, true);
    assert.match(
      outcome.ok ? "" : outcome.message,
      /still open after 1 ms, left by a runtime that is gone .*recovery settles them .*start raes run on this store again .*then drain again/,
    );
    runtime.release();
    await step.catch(() => undefined);
    await manager.close().catch(() => undefined);
  });
});
