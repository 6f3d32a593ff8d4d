import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../../src/index.js";
import { exampleManifest, modelWithParticipants } from "../../helpers/example.js";

const PARTICIPANTS = 9;

/**
 * An I/O-bound harness: each invocation waits on a timer (as an agent waits on its model) and counts
 * how many invocations are inside it at once. Nothing here asserts a duration.
 */
class SleepingRuntime extends ReferenceAutonomousParticipantRuntime {
  running = 0;
  maxRunning = 0;
  readonly started: string[] = [];

  attachInvocationToolActions(): void {}

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    this.started.push(request.participantAddress);
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.running -= 1;
    return this.nativeExecution(request, snapshot, episodeId, { status: "succeeded" });
  }
}

function manifest(inFlight: number): Record<string, unknown> {
  const m = exampleManifest();
  m.participant_runtime.max_autonomous_participants = PARTICIPANTS;
  m.participant_runtime.max_autonomous_in_flight = inFlight;
  return m;
}

async function open(runtime: SleepingRuntime, inFlight: number, concurrency?: number) {
  return RuntimeManager.open({
    model: modelWithParticipants(PARTICIPANTS, 3),
    manifest: manifest(inFlight),
    runtime,
    ...(concurrency === undefined ? {} : { concurrency }),
  });
}

describe("concurrency within a step", () => {
  it("overlaps I/O-bound invocations up to the manifest's max_autonomous_in_flight, never more", async () => {
    const runtime = new SleepingRuntime();
    const manager = await open(runtime, 4);
    try {
      assert.equal(runtime.started.length, PARTICIPANTS, "every participant ran at open");
      assert.equal(runtime.maxRunning, 4);
    } finally {
      await manager.close();
    }
  });

  it("takes --concurrency over the manifest, and a step's own option over both", async () => {
    const runtime = new SleepingRuntime();
    const manager = await open(runtime, 4, 2);
    try {
      assert.equal(runtime.maxRunning, 2);
      runtime.maxRunning = 0;
      const summary = await manager.step(1, { concurrency: 3 });
      assert.equal(summary.invocations.length, PARTICIPANTS);
      assert.equal(runtime.maxRunning, 3);
      runtime.maxRunning = 0;
      await manager.step(1, { concurrency: 1 });
      assert.equal(runtime.maxRunning, 1, "one at a time");
    } finally {
      await manager.close();
    }
  });

  it("runs every due participant at once under a limit at least their number", async () => {
    const runtime = new SleepingRuntime();
    const manager = await open(runtime, 4, PARTICIPANTS);
    try {
      assert.equal(runtime.maxRunning, PARTICIPANTS);
    } finally {
      await manager.close();
    }
  });

  it("starts participants in due order, and a bounded step commits their history in that order", async () => {
    const runtime = new SleepingRuntime();
    const manager = await open(runtime, 4, 1);
    try {
      const order = Array.from(
        { length: PARTICIPANTS },
        (_, k) => `${runtime.started[0]?.replace(/-\d+$/, "")}-${k + 1}`,
      );
      assert.deepEqual(runtime.started, order);
      const attempted = (await manager.history())
        .filter((e) => e.event_type === "action_attempted")
        .map((e) => e.participant_address);
      assert.deepEqual(attempted, order);
    } finally {
      await manager.close();
    }
  });

  it("refuses a concurrency that is not a whole number of at least 1", async () => {
    await assert.rejects(open(new SleepingRuntime(), 4, 0), RangeError);
    const manager = await open(new SleepingRuntime(), 4);
    try {
      await assert.rejects(manager.step(1, { concurrency: 1.5 }), RangeError);
    } finally {
      await manager.close();
    }
  });
});
