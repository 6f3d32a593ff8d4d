import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { alternate, type Block, median, rotate } from "../../../bench/shared/index.js";

/** A side whose n-th block takes `times[n]` ms (as told, not measured) and logs its turn. */
function side(name: string, order: string[], times: readonly number[], units = 1): Block {
  let n = 0;
  return () => {
    order.push(name);
    const ms = times[n] ?? Number.NaN;
    n += 1;
    return { ms, units };
  };
}

describe("bench blocks: every suite's real and floor sides alternate after the same warm-up", () => {
  it("warms both sides alike, then takes their blocks in turn (ABAB…, never all A then all B)", async () => {
    const order: string[] = [];
    const run = await alternate(side("A", order, [99, 99, 4, 6, 5]), side("B", order, [77, 77, 2, 2, 3]), {
      blocks: 3,
      warmup: 2,
    });
    assert.deepEqual(order, ["A", "B", "A", "B", "A", "B", "A", "B", "A", "B"]);
    assert.deepEqual(
      run.real.map((b) => b.ms),
      [4, 6, 5],
      "warm-up blocks are not timed",
    );
    assert.equal(run.realMs, 5);
    assert.equal(run.floorMs, 2);
    assert.equal(run.ratio, 2.5);
    assert.equal(run.pairedRatio, 2, "median of 4/2, 6/2, 5/3");
  });

  it("compares cost per unit, so sides with blocks of different sizes compare fairly", async () => {
    const run = await alternate(side("A", [], [0, 10], 10), side("B", [], [0, 10], 5), { blocks: 1 });
    assert.equal(run.ratio, 0.5);
  });

  it("rotates three sides A, B, C, A, B, C", async () => {
    const order: string[] = [];
    const blocks = await rotate(
      ["A", "B", "C"].map((name) => side(name, order, [1, 2, 3])),
      { blocks: 2, warmup: 1 },
    );
    assert.deepEqual(order, ["A", "B", "C", "A", "B", "C", "A", "B", "C"]);
    assert.deepEqual(
      blocks.map((b) => b.length),
      [2, 2, 2],
    );
  });

  it("takes the median of an even count as the mean of the middle two", () => {
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([3, 1, 2]), 2);
  });
});
