import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type ParticipantActionRequest, RuntimeManager } from "../../src/index.js";
import { exampleManifest } from "../helpers/example.js";
import {
  comparable,
  RAES_CASES,
  RaesNativeRuntime,
  type RaesOperation,
  type RaesRun,
  raesCaseModel,
  raesIdTranslator,
  raesRun,
} from "./raes-runtime-fixtures.js";

const ADVANCES = 50;

/** An attempt as both sides can state it: who, RAES's id, the episode and the observation point. */
function attemptOf(request: ParticipantActionRequest, translate: (id: string) => string) {
  return {
    participant_address: request.participantAddress,
    action_instance_id: translate(request.actionInstanceId),
    episode_id: request.episodeId,
    observation_point: request.observationPoint,
  };
}

function raesAttempts(operations: readonly RaesOperation[]) {
  return operations.flatMap((o) => o.attempts.map(({ execution_generation: _generation, ...rest }) => rest));
}

/** Attempts per participant, in each participant's order (RAES keeps one history per participant). */
function byParticipant<T extends { participant_address: string }>(
  attempts: readonly T[],
): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  for (const a of attempts) {
    const list = out[a.participant_address] ?? [];
    list.push(a);
    out[a.participant_address] = list;
  }
  return out;
}

async function open(name: (typeof RAES_CASES)[number], store?: string) {
  const runtime = new RaesNativeRuntime();
  const manager = await RuntimeManager.open({
    model: raesCaseModel(name),
    manifest: exampleManifest(),
    runtime,
    ...(store === undefined ? {} : { store }),
  });
  return { runtime, manager };
}

function lifecycles(run: RaesRun, operation: RaesOperation): Record<string, [string, number]> {
  return Object.fromEntries(
    run.participants.map((p) => {
      const s = operation.schedulers[p];
      return [p, [s?.lifecycle_state ?? "?", s?.attempted_actions ?? -1]];
    }),
  );
}

for (const name of RAES_CASES) {
  describe(`runtime differential against RAES: ${name}`, () => {
    const run = raesRun(name);
    const translate = raesIdTranslator(run);
    const resetAt = run.operations.findIndex((o) => o.op === "reset");
    assert.ok(resetAt === ADVANCES + 1 && run.operations[resetAt + 1]?.op === "run_due");

    it(`open() + step(k) makes exactly RAES's attempts after apply and k advances, k = 1..${ADVANCES}`, async () => {
      for (let k = 1; k <= ADVANCES; k += 1) {
        const { runtime, manager } = await open(name);
        await manager.step(k);
        const expected = run.operations.slice(0, k + 1);
        assert.deepEqual(
          byParticipant(runtime.requests.map((r) => attemptOf(r, translate))),
          byParticipant(raesAttempts(expected)),
          `k = ${k}`,
        );
        const schedulers = Object.fromEntries(
          manager.schedulers().map((s) => [s.participantAddress, [s.lifecycle, s.attempts]]),
        );
        assert.deepEqual(schedulers, lifecycles(run, expected.at(-1) as RaesOperation), `k = ${k}`);
        await manager.close();
      }
    });

    it(`after step(${ADVANCES}) and reset(), step(k) makes exactly RAES's attempts after reset and k advances`, async () => {
      for (let k = 1; k <= ADVANCES; k += 1) {
        const { runtime, manager } = await open(name);
        await manager.step(ADVANCES);
        const before = runtime.requests.length;
        await manager.reset();
        await manager.step(k);
        const expected = run.operations.slice(resetAt, resetAt + 2 + k);
        assert.deepEqual(
          byParticipant(runtime.requests.slice(before).map((r) => attemptOf(r, translate))),
          byParticipant(raesAttempts(expected)),
          `k = ${k}`,
        );
        const schedulers = Object.fromEntries(
          manager.schedulers().map((s) => [s.participantAddress, [s.lifecycle, s.attempts]]),
        );
        assert.deepEqual(schedulers, lifecycles(run, expected.at(-1) as RaesOperation), `k = ${k}`);
        await manager.close();
      }
    });

    for (const store of ["memory", "sqlite"] as const) {
      it(`the history after ${ADVANCES} steps, a reset and ${ADVANCES} more equals RAES's field for field (${store} store)`, async () => {
        const dir = mkdtempSync(join(tmpdir(), "raes-differential-"));
        try {
          const { manager } = await open(
            name,
            store === "sqlite" ? `sqlite:${join(dir, "cp.db")}` : undefined,
          );
          await manager.step(ADVANCES);
          await manager.reset();
          await manager.step(ADVANCES);
          for (const participant of run.participants) {
            const ours = (await manager.history({ participant })).map((e) => comparable(e, translate));
            const theirs = (run.history[participant] ?? []).map((e) => comparable(e));
            assert.ok(theirs.length > 0);
            assert.deepEqual(ours, theirs, participant);
          }
          await manager.close();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
}
