import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { getParticipantHistoryView, RuntimeManager } from "../../../src/index.js";
import { exampleManifest, ROOT } from "../../helpers/example.js";
import { RaesNativeRuntime, raesCaseModel } from "../raes-runtime-fixtures.js";

// RAES's answers, recorded by tools/record-raes-views.py from RAES's RuntimeManager and RuntimeControlPlane.
const FIXTURES = join(ROOT, "test", "fixtures", "raes-views");
type Json = Record<string, unknown>;
interface Stage {
  readonly stage: string;
  readonly clock: { readonly segment: number; readonly tick: number };
  readonly scheduler_states: Readonly<Record<string, Json>>;
  readonly services: Readonly<Record<string, Json>>;
  readonly views: Readonly<Record<string, Json>>;
}
const VIEWS = JSON.parse(readFileSync(join(FIXTURES, "views.json"), "utf8")) as {
  readonly participants: readonly string[];
  readonly context_view_ref: string;
  readonly stages: readonly Stage[];
};
const P = VIEWS.participants[0] as string;
const stage = (name: string) => VIEWS.stages.find((s) => s.stage === name) as Stage;
const ISO_MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const TIME_FIELDS = new Set(["generated_at", "timestamp", "initialized_at", "updated_at"]);
const POLICY = "participant.autonomous-execution.participant-behavior";

/**
 * A view as both sides can state it: wall times reduced to their format, post-state digests to their
 * algorithm (each side digests its own state), outer ids in RAES's per-segment counting.
 */
function comparable(value: unknown, translate: (id: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => comparable(v, translate));
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (TIME_FIELDS.has(key) && typeof v === "string")
      out[key] = ISO_MICROS.test(v) ? "<microsecond ISO-8601 UTC>" : `<bad time ${v}>`;
    else if (key === "post_state_digest" && typeof v === "string")
      out[key] = v.replace(/^(sha256:)[0-9a-f]{64}$/, "$1<digest>");
    else if (key === "action_instance_id" || key === "last_action_instance_id")
      out[key] = typeof v === "string" ? translate(v) : v;
    else out[key] = comparable(v, translate);
  }
  return out;
}

/** raes-ts keeps counting outer ids across resets; RAES restarts them in each segment (docs/raes-mapping.md). */
function translator(perSegment: number, segment: number): (id: string) => string {
  return (id) => {
    const m = /^(.*:)(\d+)$/.exec(id);
    if (!m || segment === 0) return id;
    return `${m[1]}${Number(m[2]) - perSegment * segment}`;
  };
}

async function at(name: "apply" | "advance-1" | "advance-2" | "run-due", store?: string) {
  const manager = await RuntimeManager.open({
    model: raesCaseModel("example"),
    manifest: exampleManifest(),
    runtime: new RaesNativeRuntime(),
    ...(store === undefined ? {} : { store }),
  });
  if (name !== "apply") await manager.step(1);
  if (name === "advance-2" || name === "run-due") await manager.step(1);
  if (name === "run-due") await manager.reset();
  return manager;
}

const same = (id: string) => id;

/**
 * Fields of RAES's service readback that raes-ts writes differently, with the reason
 * (docs/raes-mapping.md, "Execution control and episodes"); every other field must be equal.
 */
const SERVICE_FIELDS_DIFFERING: Readonly<Record<string, string>> = {
  execution_scope_ref: "raes-ts gives each participant its own service: <policy>:<participant>",
  generation: "raes-ts's generation follows the shared clock's, which starts at 1 (RAES: 0); compared offset",
  observed_generation: "as generation",
  capacity: "raes-ts's capacity is the policy's attempt bound",
  binding_digest: "digested over raes-ts's own binding record",
  time_declaration_digest: "digested over raes-ts's own time declaration record",
  last_transition_ref: "names raes-ts's own record revision",
  evidence_refs: "name raes-ts's own record revisions",
};

function comparableService(service: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(service))
    if (!Object.hasOwn(SERVICE_FIELDS_DIFFERING, key)) out[key] = value;
  return out;
}
const STAGES = ["apply", "advance-1", "advance-2", "run-due"] as const;

describe("participant views against RAES's recorded answers", () => {
  for (const name of STAGES) {
    const raes = stage(name);
    const theirs = raes.views[P] as Json;
    const translate = translator(2, raes.clock.segment);

    it(`the status view equals RAES's field for field (${name})`, async () => {
      const manager = await at(name);
      const ours = await manager.getParticipantStatusView(P);
      assert.ok(ours);
      const { execution_services, ...rest } = ours;
      assert.deepEqual(comparable(rest, translate), comparable(theirs.status, same));
      await manager.close();
    });

    it(`the status view's execution service is the stored readback, equal to RAES's service state (${name})`, async () => {
      const manager = await at(name);
      const ours = (await manager.getParticipantStatusView(P))?.execution_services ?? [];
      const service = raes.services[POLICY] as Json;
      assert.equal(ours.length, 1);
      const [mine] = ours as unknown as Json[];
      assert.deepEqual(comparableService(mine as Json), comparableService(service));
      assert.equal((mine as Json).generation, (service.generation as number) + 1);
      assert.deepEqual(mine, (await manager.store.getParticipantService(P))?.service);
    });

    it(`the history view of every episode equals RAES's (${name})`, async () => {
      const manager = await at(name);
      const histories = theirs.history as Record<string, Json>;
      for (const [episode, view] of Object.entries(histories)) {
        const ours = await manager.getParticipantHistoryView(P, episode);
        const segment = Number(episode.slice(-1));
        assert.deepEqual(comparable(ours, translator(2, segment)), comparable(view, same), episode);
      }
      await manager.close();
    });

    it(`the context view, current and of the episode, equals RAES's (${name})`, async () => {
      const manager = await at(name);
      const current = await manager.getParticipantContextView(P, { viewRef: VIEWS.context_view_ref });
      assert.deepEqual(comparable(current, translate), comparable(theirs.context, same));
      const episode = (theirs.context_episode as Json).episode_id as string;
      const scoped = await manager.getParticipantContextView(P, {
        viewRef: VIEWS.context_view_ref,
        episodeId: episode,
      });
      assert.deepEqual(comparable(scoped, translate), comparable(theirs.context_episode, same));
      await manager.close();
    });

    it(`the scheduler state under RAES's names equals RAES's (${name})`, async () => {
      const manager = await at(name);
      assert.deepEqual(
        comparable(await manager.schedulerStates(), translate),
        comparable(raes.scheduler_states, same),
      );
      await manager.close();
    });
  }

  it("the history view of an episode a participant control opened reads the stored episode events, as RAES's episodes", async () => {
    // RAES's episode lifecycle of participant alpha (tools/record-raes-control.py): initialize, reset, ...
    const raes = JSON.parse(
      readFileSync(join(ROOT, "test", "fixtures", "raes-control", "episodes.json"), "utf8"),
    ) as { histories: Record<string, Json[]> };
    const alpha = raes.histories["participant.behavior.alpha"] ?? [];
    // The reset episode as it began: reset, then running (RAES later interrupts it).
    const theirReset = alpha
      .filter((e) => e.episode_id === "participant.behavior.alpha-episode-2")
      .slice(0, 2);
    const manager = await at("advance-1");
    const opened = await manager.resetParticipantEpisode(P, { reason: "operator reset" });
    const view = await manager.getParticipantHistoryView(P, opened.episode_id);
    assert.ok(view, "the new episode has a history view, though it is no clock segment");
    const stripped = (e: Json) => {
      const { participant_address: _p, episode_id: _e, timestamp: _t, details, ...rest } = e;
      const d = { ...(details as Json) };
      if (typeof d.previous_episode_id === "string") d.previous_episode_id = "<previous>";
      return { ...rest, details: d };
    };
    assert.deepEqual(
      view.episode_history.map((e) => stripped(e as unknown as Json)),
      theirReset.map(stripped),
    );
    const stored = (await manager.store.getParticipantService(P))?.episodeHistory ?? [];
    assert.deepEqual(
      view.episode_history.map((e) => e.timestamp),
      stored.filter((e) => e.episode_id === opened.episode_id).map((e) => e.timestamp),
    );
    const status = await manager.getParticipantStatusView(P);
    assert.equal(status?.episode_id, opened.episode_id);
    assert.equal(status?.episode_state?.last_control_action, "reset");
    // The episode before it keeps its history view.
    const before = await manager.getParticipantHistoryView(P, `${P}-autonomous-0`);
    assert.deepEqual(
      before?.episode_history.map((e) => e.event_type),
      ["episode_initialized", "episode_running"],
    );
    await manager.close();
  });

  it("an unknown participant or episode has no view, as in RAES", async () => {
    const unknown = stage("run-due").views.unknown as Json;
    assert.deepEqual(unknown, { status: null, history: null });
    const manager = await at("apply");
    assert.equal(await manager.getParticipantStatusView("participant.behavior.nobody"), undefined);
    assert.equal(await manager.getParticipantHistoryView(P, "no-such-episode"), undefined);
    assert.equal(await manager.getParticipantHistoryView(P, `${P}-autonomous-1`), undefined);
    assert.equal(
      await manager.getParticipantContextView("participant.behavior.nobody", { viewRef: "v" }),
      undefined,
    );
    await manager.close();
  });

  it("the standalone history view reads a SQLite store another manager wrote, equal to the manager's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-views-"));
    try {
      const url = `sqlite:${join(dir, "cp.db")}`;
      const manager = await at("run-due", url);
      const episode = `${P}-autonomous-0`;
      const fromManager = await manager.getParticipantHistoryView(P, episode);
      const fromStore = await getParticipantHistoryView(
        { store: manager.store, model: raesCaseModel("example") },
        P,
        episode,
      );
      const strip = (v: unknown) => ({ ...(v as Json), generated_at: "-" });
      assert.deepEqual(strip(fromStore), strip(fromManager));
      assert.equal(fromManager?.behavior_history.length, 6);
      await manager.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
