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

describe("the timeline's resolutions", () => {
  it("shows who resolved an indeterminate action, with the decision, note and time", () => {
    const invocation = craftedInvocation("participant.behavior.alpha", 0);
    const action = craftedToolAction(invocation, 1, "c-1", "indeterminate");
    const page = renderTimelineHtml({
      events: sequenced(committedDrafts(invocation, [action], "succeeded")),
      operations: [
        {
          ...toolOperation(action),
          resolution: {
            resolution: "effect_absent",
            note: "checked the portal",
            resolvedAt: "2025-06-01T10:05:00.000Z",
            operator: "alice",
          },
        },
      ],
    });
    const [, id] = attributeValues(visibleMarkup(page), "data-detail");
    const rows = Object.fromEntries(
      detailSpec(page, id as string)
        .sections.filter((s) => s.title === "Operation")
        .flatMap((s) => s.rows),
    );
    assert.equal(rows.resolution, "effect_absent");
    assert.equal(rows["resolution.operator"], "alice");
    assert.equal(rows["resolution.note"], "checked the portal");
  });
});
