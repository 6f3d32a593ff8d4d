import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { renderTimelineHtml } from "../../../src/timeline/index.js";
import {
  committedDrafts,
  craftedInvocation,
  craftedToolAction,
  sequenced,
  toolOperation,
} from "../../fixtures/history/crafted.js";
import { attributeValues, detailSpec, visibleMarkup } from "../../fixtures/history/html.js";

const at = (s: number) => new Date(Date.parse("2025-06-01T10:00:00.000Z") + s * 1000).toISOString();

/** One invocation of 10 s whose two tool actions' records say when they were admitted, dispatched and settled. */
function timedPage(): string {
  const invocation = craftedInvocation("participant.behavior.alpha", 0);
  const first = craftedToolAction(invocation, 1, "c-1", "succeeded");
  const second = craftedToolAction(invocation, 2, "c-2", "withheld");
  return renderTimelineHtml({
    events: sequenced(committedDrafts(invocation, [first, second], "succeeded")),
    operations: [
      {
        ...toolOperation(first),
        toolName: "search_docs",
        admittedAt: at(1),
        dispatchedAt: at(2),
        settledAt: at(6),
      },
      { ...toolOperation(second), admittedAt: at(7), settledAt: at(7.5) },
      {
        id: invocation.id,
        domain: "participant",
        diagnostics: [],
        changedAddresses: [invocation.participantAddress],
        parentId: null,
        kind: "scheduler_invocation",
        state: "succeeded",
        startedAt: at(0),
        endedAt: at(10),
        refusals: { request_conflict: 2, target_outside_binding: 1 },
        updatedAt: at(10),
      },
    ],
  });
}

describe("the timeline's time axis, tool names and refusals", () => {
  const page = timedPage();
  const visible = visibleMarkup(page);

  it("places each tool action on its invocation's axis at its record's admit, dispatch and settle times", () => {
    assert.deepEqual(attributeValues(visible, "data-duration-ms"), ["10000"]);
    assert.deepEqual(attributeValues(visible, "data-admit-ms"), ["1000", "7000"]);
    assert.deepEqual(
      attributeValues(visible, "data-dispatch-ms"),
      ["2000"],
      "a withheld action has no dispatch",
    );
    assert.deepEqual(attributeValues(visible, "data-settle-ms"), ["6000", "7500"]);
    // Bars to scale: 1 s to 6 s of 10 s, of which 1 s waited for dispatch; 7 s to 7.5 s.
    assert.match(visible, /style="left:10\.000%;width:50\.000%"><span class="wait" style="width:20\.000%">/);
    assert.match(visible, /style="left:70\.000%;width:5\.000%"><span class="wait" style="width:100\.000%">/);
    assert.match(visible, /<li class="ticks" aria-hidden="true"><span>0<\/span><span>10\.0 s<\/span>/);
  });

  it("names the MCP tool on the lane and in the details, and the call id when there is none", () => {
    assert.deepEqual(
      [...visible.matchAll(/<span class="lane-name">([^<]*)<\/span>/g)].map((m) => m[1]),
      ["#1 search_docs", "#2 c-2"],
    );
    const [detail] = attributeValues(visible, "data-detail").filter((_, i) => i === 1);
    const spec = detailSpec(page, detail ?? "");
    const rows = Object.fromEntries(spec.sections.flatMap((s) => s.rows));
    assert.equal(rows.tool_name, "search_docs");
    assert.equal(rows.dispatched, at(2));
    assert.equal(rows.duration, "5.00 s");
  });

  it("counts refusals per code on the row, in the invocation's details and for the page", () => {
    assert.match(
      visible,
      /data-refusals="3"[^>]*>3 refused: request_conflict ×2, target_outside_binding ×1</,
    );
    assert.deepEqual(attributeValues(visible, "data-refusal-code"), [
      "request_conflict",
      "target_outside_binding",
    ]);
    const [invocationDetail] = attributeValues(visible, "data-detail");
    const refusals = detailSpec(page, invocationDetail ?? "").sections.find((s) => s.title === "Refusals");
    assert.deepEqual(refusals?.rows, [
      ["request_conflict", "2"],
      ["target_outside_binding", "1"],
    ]);
  });

  it("shows when recovery settled an action whose process ended (recovered_at), its settlement time unknown", () => {
    const invocation = craftedInvocation("participant.behavior.alpha", 0);
    const action = craftedToolAction(invocation, 1, "c-1", "indeterminate");
    const page = renderTimelineHtml({
      events: sequenced(committedDrafts(invocation, [action], undefined)),
      operations: [
        {
          ...toolOperation(action),
          admittedAt: at(1),
          dispatchedAt: at(2),
          recoveredAt: at(30),
          unknownReason: "runtime_interrupted",
        },
      ],
    });
    const [detail] = attributeValues(visibleMarkup(page), "data-detail").filter((_, i) => i === 1);
    const rows = Object.fromEntries(detailSpec(page, detail ?? "").sections.flatMap((s) => s.rows));
    assert.equal(rows.recovered_at, at(30));
    assert.equal(rows.unknown_reason, "runtime_interrupted");
    assert.equal(rows.settled_at, undefined);
  });
});
