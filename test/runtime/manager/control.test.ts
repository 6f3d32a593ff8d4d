import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  ParticipantControlError,
  type ParticipantEpisodeResetRequest,
  RegistrationError,
  RuntimeError,
  RuntimeManager,
} from "../../../src/index.js";
import { EXAMPLE, exampleManifest, exampleModel, modelWithAttempts, ROOT } from "../../helpers/example.js";
import { RecordingRuntime } from "../harnesses.js";

const P = EXAMPLE.participant;
const ACTIONS = ["start", "pause", "resume", "drain", "reset", "teardown"];
// Recorded from RAES by tools/record-raes-control.py.
const fixture = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, "test", "fixtures", "raes-control", name), "utf8"));
const CONTROL = fixture("execution-control.json");
const REGISTRATION = fixture("registration.json");

type ManifestJson = ReturnType<typeof exampleManifest>;

function controlledManifest(edit: (m: ManifestJson) => void = () => undefined): ManifestJson {
  const manifest = exampleManifest();
  manifest.participant_runtime.supports_execution_control = true;
  manifest.participant_runtime.supported_execution_control_actions = ACTIONS;
  edit(manifest);
  return manifest;
}

class ResettingRuntime extends RecordingRuntime {
  readonly resets: ParticipantEpisodeResetRequest[][] = [];
  resetMany(requests: readonly ParticipantEpisodeResetRequest[]): void {
    this.resets.push([...requests]);
  }
}

async function refusalCode(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return (error as { code: string }).code;
  }
  return "none";
}

describe("RuntimeManager execution control", () => {
  it("walks RAES's issue-898 sequence through the manager with RAES's answers (generations offset by the clock's)", async () => {
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(1000),
      manifest: controlledManifest(),
      runtime: new RecordingRuntime(),
      startParticipants: false,
    });
    const base = (await manager.participantExecutionState(P)).generation;
    const call = {
      start: manager.startParticipant,
      pause: manager.pauseParticipant,
      resume: manager.resumeParticipant,
      drain: manager.drainParticipant,
      reset: manager.resetParticipant,
      teardown: manager.teardownParticipant,
    } as const;
    for (const row of CONTROL.sequence as {
      action: keyof typeof call;
      expected_generation: number;
      success: boolean;
      codes: string[];
      state: Record<string, unknown>;
    }[]) {
      const code = await refusalCode(
        call[row.action].call(manager, P, {
          expectedGeneration: base + row.expected_generation,
          operator: "alice",
        }),
      );
      assert.equal(code === "none", row.success, `${row.action} ${row.expected_generation}: ${code}`);
      if (!row.success) assert.deepEqual([code], row.codes);
      const s = await manager.participantExecutionState(P);
      assert.deepEqual(
        [s.observed_lifecycle, s.generation - base, s.accepting_new_work, s.resources_released],
        [
          row.state.observed_lifecycle,
          row.state.generation,
          row.state.accepting_new_work,
          row.state.resources_released,
        ],
        row.action,
      );
    }
    const decisions = await manager.store.readDecisionPage(0, 100);
    assert.equal(decisions.length, CONTROL.sequence.filter((r: { success: boolean }) => r.success).length);
    assert.ok(
      decisions.every((d) => d.kind.startsWith("execution_") && d.subject === P && d.operator === "alice"),
    );
    await manager.close();
  });

  it("a paused participant runs nothing while the clock goes on; resume runs it again", async () => {
    const runtime = new RecordingRuntime();
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(1000),
      manifest: controlledManifest(),
      runtime,
    });
    await manager.step(2);
    await manager.pauseParticipant(P);
    const before = runtime.requests.length;
    assert.deepEqual((await manager.step(5)).invocations, []);
    assert.equal(runtime.requests.length, before);
    await manager.resumeParticipant(P);
    assert.equal((await manager.step(2)).invocations.length, 2);
    await manager.close();
  });

  it("a stale expected generation is refused with RAES's code and leaves no trace", async () => {
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(1000),
      manifest: controlledManifest(),
      runtime: new RecordingRuntime(),
    });
    const before = await manager.participantServices();
    const code = await refusalCode(manager.pauseParticipant(P, { expectedGeneration: 99 }));
    assert.equal(code, "runtime.participant-execution-stale-generation");
    assert.deepEqual(await manager.participantServices(), before);
    assert.equal((await manager.store.getDecisionHead()).decisions, 0);
    await manager.close();
  });

  it("drain and reset clear a completed schedule's attempts under the next generation, which its invocations carry", async () => {
    const runtime = new RecordingRuntime();
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: controlledManifest(),
      runtime,
    });
    await manager.step(5);
    assert.deepEqual(
      manager.schedulers().map((s) => s.lifecycle),
      ["completed"],
    );
    const drained = await manager.drainParticipant(P);
    await manager.resetParticipant(P, { expectedGeneration: drained.generation });
    await manager.step(1);
    assert.equal(runtime.requests.at(-1)?.executionGeneration, drained.generation + 1);
    assert.equal(runtime.requests.length, 3, "the reset schedule ran again");
    await manager.close();
  });

  it("gates every control on the manifest's supports_execution_control", async () => {
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: exampleManifest(),
      runtime: new RecordingRuntime(),
    });
    for (const control of [manager.pauseParticipant, manager.drainParticipant, manager.teardownParticipant]) {
      const code = await refusalCode(control.call(manager, P));
      assert.equal(code, "runtime.participant-execution-control-unsupported");
    }
    assert.equal(
      await refusalCode(manager.pauseParticipant("participant.behavior.nobody")),
      "runtime.participant-execution-not-found",
    );
    await manager.close();
  });
});

describe("coordinated participant reset (RAES's registration and admission)", () => {
  const coordinated = (value: boolean) => (m: ManifestJson) => {
    m.time = { supports_coordinated_participant_reset: value };
  };

  it("registration refuses a runtime without resetMany under supports_coordinated_participant_reset, with RAES's code", async () => {
    const error = await RuntimeManager.open({
      model: exampleModel(),
      manifest: controlledManifest(coordinated(true)),
      runtime: new RecordingRuntime(),
    }).catch((e: unknown) => e);
    assert.ok(error instanceof RegistrationError);
    assert.equal(error.code, REGISTRATION.coordinated_reset_without_reset_many.code);
    assert.match(error.message, /resetMany/);
  });

  it("a time section without coordinated reset refuses a resetting progression at open, with RAES's code", async () => {
    const error = await RuntimeManager.open({
      model: exampleModel(),
      manifest: controlledManifest(coordinated(false)),
      runtime: new RecordingRuntime(),
    }).catch((e: unknown) => e);
    assert.ok(error instanceof RuntimeError);
    assert.deepEqual([error.code], REGISTRATION.clock_reset_without_coordinated_reset.codes);
  });

  it("a clock reset calls resetMany and starts RAES's new episode for each participant, keeping the old one in its history", async () => {
    const runtime = new ResettingRuntime();
    const manager = await RuntimeManager.open({
      model: exampleModel(),
      manifest: controlledManifest(coordinated(true)),
      runtime,
    });
    await manager.reset();
    assert.deepEqual(runtime.resets, [
      [
        {
          participant_address: P,
          episode_id: `${P}-autonomous-1`,
          reason: "shared clock reset to segment 1",
        },
      ],
    ]);
    const [record] = await manager.participantServices();
    const expected = REGISTRATION.clock_reset_with_coordinated_reset.episodes[P];
    assert.deepEqual(
      {
        episode_id: record?.episode?.episode_id,
        sequence_number: record?.episode?.sequence_number,
        last_control_action: record?.episode?.last_control_action,
      },
      expected,
    );
    assert.deepEqual(
      record?.episodeHistory.map((e) => [e.event_type, e.episode_id]),
      [
        ["episode_initialized", `${P}-autonomous-0`],
        ["episode_running", `${P}-autonomous-0`],
        ["episode_reset", `${P}-autonomous-1`],
        ["episode_running", `${P}-autonomous-1`],
      ],
    );
    await manager.close();
  });

  it("a terminated episode runs nothing until it is restarted; the new episode's id is on its invocations", async () => {
    const runtime = new RecordingRuntime();
    const manager = await RuntimeManager.open({
      model: modelWithAttempts(1000),
      manifest: controlledManifest(),
      runtime,
    });
    await manager.terminateParticipantEpisode(P, { detail: "operator stop" });
    assert.deepEqual((await manager.step(3)).invocations, []);
    const error = await manager.resetParticipantEpisode(P).catch((e: unknown) => e);
    assert.ok(error instanceof ParticipantControlError);
    assert.equal(error.code, "runtime.participant-runtime.rejected");
    const episode = await manager.restartParticipantEpisode(P, { episodeId: "green-2" });
    assert.equal(episode.sequence_number, 1);
    await manager.step(1);
    assert.equal(runtime.requests.at(-1)?.episodeId, "green-2");
    await manager.close();
  });
});
