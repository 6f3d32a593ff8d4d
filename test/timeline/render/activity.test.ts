import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { ActivityProvenance } from "../../../src/history/index.js";
import { activityRows, retryChain } from "../../../src/timeline/render/index.js";
import { ROOT } from "../../helpers/example.js";

interface TraceLine {
  readonly action_instance_id: string;
  readonly occurrence_ordinal: number;
  readonly retry: number;
  readonly candidate_id: string;
  readonly timing_disposition: string;
  readonly burst_position: number;
  readonly tick: number;
  readonly predecessor_attempt_id: string | null;
}

const trace: TraceLine[] = readFileSync(
  join(ROOT, "test/fixtures/conformance/v2/trace-seed42-fail3.jsonl"),
  "utf8",
)
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as TraceLine);

function provenanceOf(line: TraceLine): ActivityProvenance {
  return {
    policy_address: "participant.autonomous-execution.participant-behavior",
    policy_profile: "participant-autonomous-execution/v2",
    occurrence_id: line.action_instance_id.replace(/:retry=\d+$/, ""),
    attempt_id: line.action_instance_id,
    predecessor_attempt_id: line.predecessor_attempt_id,
    candidate_id: line.candidate_id,
    dependency_candidate_ids: [],
    timing_tick: line.tick,
    timing_disposition: line.timing_disposition,
    burst_position: line.burst_position,
    random_control_id: "control",
    random_profile_id: "blake3-xof-participant-v1",
    random_address: {} as ActivityProvenance["random_address"],
    terminal_outcome: "succeeded",
  };
}

function row(p: ActivityProvenance, name: string): unknown {
  return activityRows(p).find(([key]) => key === name)?.[1];
}

describe("the timeline's retry chain of a v2 attempt", () => {
  const retries = trace.filter((line) => line.predecessor_attempt_id !== null);

  it("RAES's seed-42 trace has retries to check", () => {
    assert.ok(retries.length >= 2, `only ${retries.length} retries in the trace`);
  });

  it("ends with RAES's predecessor and holds one earlier attempt per retry", () => {
    for (const line of retries) {
      const chain = retryChain(provenanceOf(line));
      assert.equal(chain.length, line.retry, line.action_instance_id);
      assert.equal(chain.at(-1), line.predecessor_attempt_id, line.action_instance_id);
      assert.deepEqual(row(provenanceOf(line), "retry_chain"), [
        ...chain,
        `${line.action_instance_id} (this attempt)`,
      ]);
    }
  });

  it("a later retry lists every attempt of its occurrence, first attempt first", () => {
    const stem = "policy:episode=e:segment=0:occurrence=4";
    const third = {
      ...provenanceOf(retries[0] as TraceLine),
      attempt_id: `${stem}:retry=2`,
      predecessor_attempt_id: `${stem}:retry=1`,
    };
    assert.deepEqual(row(third, "retry_chain"), [
      `${stem}:retry=0`,
      `${stem}:retry=1`,
      `${stem}:retry=2 (this attempt)`,
    ]);
  });

  it("a first attempt has no chain", () => {
    const first = trace.find((line) => line.predecessor_attempt_id === null) as TraceLine;
    assert.deepEqual(retryChain(provenanceOf(first)), []);
    assert.equal(row(provenanceOf(first), "retry_chain"), "none");
    assert.equal(row(provenanceOf(first), "predecessor_attempt_id"), "none (first attempt)");
  });
});
