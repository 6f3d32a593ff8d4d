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

/** A call waiting for approval, as the page is given it. */
type PendingApproval = NonNullable<Parameters<typeof renderTimelineHtml>[0]["pendingApprovals"]>[number];

/**
 * A page of one succeeded call and, with `held`, a second call inv:tool=2 waiting for approval (its
 * fields over the defaults); without, no call waits.
 */
function pageHolding(held?: Partial<PendingApproval>): string {
  const invocation = craftedInvocation("participant.behavior.alpha", 0);
  const done = craftedToolAction(invocation, 1, "c-1", "succeeded");
  return renderTimelineHtml({
    events: sequenced(committedDrafts(invocation, [done], "succeeded")),
    operations: [toolOperation(done)],
    ...(held === undefined
      ? {}
      : {
          storeUrl: "sqlite:/tmp/x.db",
          pendingApprovals: [
            {
              id: "inv:tool=2",
              participantAddress: "participant.behavior.alpha",
              requestedAt: at(3),
              timeoutSeconds: 300,
              ...held,
            },
          ],
        }),
  });
}

describe("the timeline's approvals", () => {
  it("shows a held call's approval in its details: approved, denied or expired, with operator and times", () => {
    const invocation = craftedInvocation("participant.behavior.alpha", 0);
    const approved = craftedToolAction(invocation, 1, "c-1", "succeeded");
    const denied = craftedToolAction(invocation, 2, "c-2", "withheld");
    const expired = craftedToolAction(invocation, 3, "c-3", "withheld");
    const held = { requestedAt: at(1), timeoutSeconds: 300 };
    const page = renderTimelineHtml({
      events: sequenced(committedDrafts(invocation, [approved, denied, expired], "succeeded")),
      operations: [
        {
          ...toolOperation(approved),
          approval: { ...held, state: "approved", decidedAt: at(4), operator: "alice", note: "in scope" },
        },
        {
          ...toolOperation(denied),
          withheldReason: "approval_denied",
          approval: { ...held, state: "denied", decidedAt: at(5), operator: "bob", note: "" },
        },
        {
          ...toolOperation(expired),
          withheldReason: "approval_expired",
          approval: { ...held, state: "expired", decidedAt: at(301), expiredBy: "timeout" },
        },
      ],
    });
    const details = attributeValues(visibleMarkup(page), "data-detail").slice(1, 4);
    const approvals = details.map((id) =>
      Object.fromEntries(
        detailSpec(page, id)
          .sections.filter((s) => s.title === "Approval")
          .flatMap((s) => s.rows),
      ),
    );
    assert.deepEqual(
      approvals.map((a) => [a["approval.state"], a["approval.operator"], a["approval.decided_at"]]),
      [
        ["approved", "alice", at(4)],
        ["denied", "bob", at(5)],
        ["expired", undefined, at(301)],
      ],
    );
    assert.equal(approvals[0]?.["approval.requested_at"], at(1));
    assert.equal(approvals[0]?.["approval.note"], "in scope");
    assert.equal(approvals[1]?.withheld_reason, "approval_denied");
    assert.equal(approvals[2]?.["approval.expired_by"], "timeout");
  });

  it("lists the calls still waiting for approval in their participant's section, with approve and deny commands", () => {
    const visible = visibleMarkup(pageHolding({ toolName: "probe_login" }));
    assert.deepEqual(attributeValues(visible, "data-pending-approval"), ["inv:tool=2"]);
    assert.match(visible, /1 tool call waits for approval/);
    assert.match(visible, /data-decision="approve">[^<]*approve inv:tool=2 --store sqlite:\/tmp\/x\.db</);
    assert.match(visible, /data-decision="deny">[^<]*deny inv:tool=2 --store/);
    assert.deepEqual(attributeValues(visibleMarkup(pageHolding()), "data-pending-approval"), []);
  });

  it("gives a held call whose approve would be refused only its deny command, and why", () => {
    const message = "the runtime holding inv:tool=2 (pid 4242) is gone; its next start withholds the call";
    const visible = visibleMarkup(pageHolding({ lapsed: { code: "approval.runtime-gone", message } }));
    assert.deepEqual(attributeValues(visible, "data-decision"), ["deny"]);
    assert.doesNotMatch(visible, /approve inv:tool=2/);
    assert.match(visible, /data-decision="deny">[^<]*deny inv:tool=2 --store sqlite:\/tmp\/x\.db</);
    assert.deepEqual(attributeValues(visible, "data-no-approve"), ["approval.runtime-gone"]);
    assert.ok(visible.includes(`(no approve: ${message})`));
  });
});
