import assert from "node:assert/strict";
import {
  type InvocationToolActionPort,
  type ParticipantActionRequest,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../src/index.js";
import { exampleManifest, exampleModel } from "../helpers/example.js";
import { outcomeFor, requestFor } from "../helpers/tool-requests.js";

/** A clock the harness moves by hand: every reading between two moves is the same instant. */
export class HandClock {
  ms = Date.UTC(2026, 0, 1, 12, 0, 0);
  readonly now = (): number => this.ms;
  /** Moves the clock forward by `ms` (fractions are microseconds). */
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** The times the scripted run below produces, in microsecond ISO-8601. */
export const SCRIPTED_TIMES = {
  started: "2026-01-01T12:00:00.000000Z",
  aAdmitted: "2026-01-01T12:00:00.001500Z",
  aDispatched: "2026-01-01T12:00:00.003500Z",
  aSettled: "2026-01-01T12:00:00.013750Z",
  bAdmitted: "2026-01-01T12:00:00.014750Z",
  bSettled: "2026-01-01T12:00:00.017750Z",
  ended: "2026-01-01T12:00:00.021750Z",
} as const;

/** One invocation whose port calls happen at known instants: a dispatched-and-completed action, a cancelled one. */
class ScriptedTimes extends ReferenceAutonomousParticipantRuntime {
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" } as const;
  #port: InvocationToolActionPort | undefined;
  constructor(private readonly clock: HandClock) {
    super();
  }
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#port = port;
  }
  override async modelAction(request: ParticipantActionRequest, snapshot: ParticipantSnapshot) {
    const port = this.#port as InvocationToolActionPort;
    this.clock.advance(1.5);
    const a = await port.admit(requestFor(port, "a"));
    assert.ok(a.admitted);
    this.clock.advance(2);
    assert.ok((await port.dispatch(a.actionInstanceId)).accepted);
    this.clock.advance(10.25);
    assert.ok((await port.complete(a.actionInstanceId, outcomeFor(port, a.actionInstanceId))).ok);
    this.clock.advance(1);
    const b = await port.admit(requestFor(port, "b"));
    assert.ok(b.admitted);
    this.clock.advance(3);
    assert.ok((await port.cancel(b.actionInstanceId)).ok);
    this.clock.advance(4);
    return this.nativeExecution(request, snapshot, request.episodeId, { status: "succeeded" });
  }
}

/** Opens the example (its tick-0 action runs at open) with the scripted harness on `store`. */
export async function runScriptedTimes(store?: string): Promise<RuntimeManager> {
  const clock = new HandClock();
  const manager = await RuntimeManager.open({
    model: exampleModel(),
    manifest: exampleManifest(),
    runtime: new ScriptedTimes(clock),
    now: clock.now,
    ...(store === undefined ? {} : { store }),
  });
  return manager;
}
