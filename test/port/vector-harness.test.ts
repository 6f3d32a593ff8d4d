import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type PortConnector, runVector, SPEC, type Step, type Vector } from "./support/vectors.js";
import { WorkerPortHost } from "./support/worker-host.js";

/** Every vector once per step that expects an answer, with that one answer made wrong. */
function withOneWrongAnswer(): Array<{ label: string; vector: Vector }> {
  const out: Array<{ label: string; vector: Vector }> = [];
  for (const vector of SPEC.vectors) {
    const lists: Array<"steps" | "repeat"> = vector.repeat ? ["repeat", "steps"] : ["steps"];
    for (const list of lists) {
      const steps = list === "repeat" ? (vector.repeat?.steps ?? []) : vector.steps;
      steps.forEach((step, index) => {
        if (step.expect === undefined) return;
        const wrong: Step[] = steps.map((s, i) => (i === index ? { ...s, expect: `not-${s.expect}` } : s));
        const changed: Vector =
          list === "repeat" && vector.repeat
            ? { ...vector, repeat: { ...vector.repeat, steps: wrong } }
            : { ...vector, steps: wrong };
        out.push({
          label: `${vector.name} / ${list}[${index}] ${step.op} ${step.call ?? ""}`,
          vector: changed,
        });
      });
    }
  }
  return out;
}

/**
 * Runs every wrong-answer copy and returns those the harness let pass, or failed only by accident
 * (another check tripping later) instead of naming the wrong step.
 */
async function survivors(connect?: PortConnector): Promise<string[]> {
  const missed: string[] = [];
  for (const { label, vector } of withOneWrongAnswer()) {
    try {
      await runVector(vector, connect);
      missed.push(`${label}: passed`);
    } catch (error) {
      const named = error instanceof assert.AssertionError && /expected not-/.test(error.message);
      if (!named) missed.push(`${label}: failed otherwise: ${String(error).split("\n")[0]}`);
    }
  }
  return missed;
}

describe("the conformance harness fails on any wrong expected answer", () => {
  it("covers many steps", () => assert.ok(withOneWrongAnswer().length >= 80));

  it("directly on the port", async () => {
    assert.deepEqual(await survivors(), []);
  });

  describe("over the worker bridge", () => {
    let host: WorkerPortHost;
    before(() => {
      host = new WorkerPortHost();
    });
    after(async () => {
      await host.close();
    });
    it("every wrong answer fails", async () => {
      assert.deepEqual(await survivors(host.connect), []);
    });
  });

  it("fails on a wrong expected history", async () => {
    const [happy] = SPEC.vectors;
    assert.ok(happy?.then.history);
    const wrong: Vector = structuredClone(happy);
    Object.assign(wrong.then, { history: [...happy.then.history].reverse() });
    await assert.rejects(runVector(wrong), assert.AssertionError);
  });
});
