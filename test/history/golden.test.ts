import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type HistoryEvent,
  type InvocationToolActionPort,
  type ParticipantActionRequest,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
} from "../../src/index.js";
import { exampleManifest, exampleModel, ROOT } from "../helpers/example.js";
import { outcomeFor, requestFor } from "../helpers/tool-requests.js";
import { deriveGolden, raesDefined, raesTriple, raesTripleMillis } from "./golden-raes.js";

const GOLDEN = join(ROOT, "test", "fixtures", "golden", "history-v1.jsonl");

/**
 * RAES's native test runtime (green-worker 1.0.0, succeeded, "customer portal responded"), which first
 * settles one tool action of every kind, in admission order a..e.
 */
class EverySettlement extends ReferenceAutonomousParticipantRuntime {
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" } as const;
  readonly errors: unknown[] = [];
  port: InvocationToolActionPort | undefined;
  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.port = port;
  }
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    ctx: { episodeId: string },
  ) {
    // The manager would turn a failed assert into a failed invocation: keep it for the test to throw.
    await this.#tools().catch((error: unknown) => this.errors.push(error));
    return this.nativeExecution(request, snapshot, ctx.episodeId, {
      status: "succeeded",
      observations: ["customer portal responded"],
    });
  }
  async #tools(): Promise<void> {
    const port = this.port as InvocationToolActionPort;
    const ids: string[] = [];
    const admit = async (call: string) => {
      const decision = await port.admit(requestFor(port, call));
      assert.ok(decision.admitted, `admit ${call}`);
      ids.push(decision.actionInstanceId);
    };
    for (const call of ["a", "b", "c", "d"]) await admit(call);
    const [a, b, c, d] = ids as [string, string, string, string];
    const outcome = (id: string, status: "succeeded" | "failed" | "partial_success") =>
      outcomeFor(port, id, {
        status,
        ...(status === "failed" ? { failureClass: "target_unavailable" } : {}),
        ...(status === "partial_success" ? { evidenceRefs: ["content.participant-observation"] } : {}),
      });
    for (const id of [a, b, c, d]) assert.ok((await port.dispatch(id)).accepted);
    assert.ok((await port.complete(a, outcome(a, "succeeded"))).ok);
    assert.ok((await port.complete(b, outcome(b, "failed"))).ok);
    assert.ok((await port.complete(c, outcome(c, "partial_success"))).ok);
    assert.ok((await port.reportUnknown(d, "timeout")).ok);
    await admit("e");
    assert.ok((await port.cancel(ids[4] as string)).ok);
  }
}

/** The example's first action as RAES runs it at apply (tick 0), its clock fixed at RAES's recorded instant. */
async function goldenRun(): Promise<HistoryEvent[]> {
  const runtime = new EverySettlement();
  const fixed = raesTripleMillis();
  const manager = await RuntimeManager.open({
    model: exampleModel(),
    manifest: exampleManifest(),
    runtime,
    now: () => fixed,
  });
  try {
    if (runtime.errors.length > 0) throw runtime.errors[0];
    return await manager.history();
  } finally {
    await manager.close();
  }
}

const jsonLines = (events: readonly object[]) => `${events.map((e) => JSON.stringify(e)).join("\n")}\n`;
const golden = () =>
  readFileSync(GOLDEN, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("golden history (RAES's format where RAES defines it, pinned across versions)", () => {
  it("raes-ts's history of the golden run equals test/fixtures/golden/history-v1.jsonl byte for byte", async () => {
    const ours = await goldenRun();
    if (process.env.UPDATE_GOLDEN === "1") {
      writeFileSync(GOLDEN, jsonLines(deriveGolden(ours)));
      assert.fail(
        `UPDATE_GOLDEN=1 rewrote ${GOLDEN} from RAES's triple; review the diff and run again without it`,
      );
    }
    assert.equal(jsonLines(ours), readFileSync(GOLDEN, "utf8"));
  });

  it("the golden's outer triple is RAES's own triple, field for field, apart from raes-ts's fields and digest", () => {
    const outer = golden().filter((e) => e.invocation_tool_context === undefined);
    assert.deepEqual(outer.map(raesDefined), raesTriple().map(raesDefined));
  });

  it("the golden's tool-action events carry RAES's invocation-wide fields with RAES's values", () => {
    const byType = new Map(raesTriple().map((e) => [String(e.event_type), e]));
    const tools = golden().filter((e) => e.invocation_tool_context !== undefined);
    assert.equal(tools.length, 15);
    for (const event of tools) {
      const raes = byType.get(String(event.event_type)) ?? {};
      assert.deepEqual(
        Object.keys(raesDefined(event)),
        Object.keys(raesDefined(raes)),
        String(event.event_id),
      );
      for (const key of [
        "timestamp",
        "participant_address",
        "episode_id",
        "action_contract_address",
        "actor_provenance",
        "lifecycle_phase",
        "phase_realization",
        "admission_disposition",
        "state_transition_kind",
        "observation_boundary_address",
        "temporal_contexts",
      ])
        assert.deepEqual(event[key], raes[key], `${String(event.event_id)} ${key}`);
      const result = event.action_result as Record<string, unknown> | undefined;
      const raesResult = raes.action_result as Record<string, unknown> | undefined;
      if (raesResult)
        for (const key of [
          "participant_address",
          "episode_id",
          "action_contract_address",
          "observation_point",
        ])
          assert.equal(result?.[key], raesResult[key], `${String(event.event_id)} action_result.${key}`);
    }
  });
});
