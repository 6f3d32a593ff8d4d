import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { consumedLine, type RecoveredInvocation } from "../../../src/runtime/index.js";

/** `n` recovered invocations; `stoppers` of them (from the first) each stopped a scheduler. */
const recovered = (n: number, stoppers = 0): RecoveredInvocation[] =>
  Array.from({ length: n }, (_, k) => ({
    invocationId: `inv-${k}`,
    participantAddress: "p",
    settlements: {},
    stopped: k < stoppers,
  }));

describe("the recovery line", () => {
  it("names every consumed attempt when there are a few", () => {
    assert.equal(
      consumedLine(recovered(1, 1)),
      "recovered an interrupted run: 1 attempt was consumed by the crash or lost commit (never retried), 1 stopped its scheduler: inv-0",
    );
    assert.equal(
      consumedLine(recovered(5)),
      "recovered an interrupted run: 5 attempts were consumed by the crash or lost commit (never retried): inv-0, inv-1, inv-2, inv-3, inv-4",
    );
  });

  it("past five, names the first five, counts the rest and says how to list them", () => {
    const line = consumedLine(recovered(10_000, 3));
    assert.equal(
      line,
      "recovered an interrupted run: 10000 attempts were consumed by the crash or lost commit (never retried), 3 stopped their schedulers: inv-0, inv-1, inv-2, inv-3, inv-4 and 9995 more (list them: raes operations --kind scheduler_invocation --state failed; their dispatched tool actions: raes operations --state indeterminate)",
    );
    assert.ok(!line.includes("inv-5"));
  });
});
