import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryControlPlaneStore } from "../../../src/store/index.js";
import { readTimelineInput, renderTimelineHtml } from "../../../src/timeline/index.js";
import { committedDrafts, craftedInvocation, sequenced } from "../../fixtures/history/crafted.js";
import { visibleMarkup } from "../../fixtures/history/html.js";

const P = "participant.behavior.alpha";
const at = (s: number) => new Date(Date.parse("2025-06-01T10:00:00.000Z") + s * 1000).toISOString();

describe("the timeline's operator decisions about a participant", () => {
  it("lists who decided what and when in the participant's section, newest first, escaped, at most 20", () => {
    const invocation = craftedInvocation(P, 0);
    const decisions = Array.from({ length: 22 }, (_, i) => ({
      kind: i === 21 ? "execution_pause" : "resume",
      participantAddress: P,
      operator: i === 21 ? "white-cell <b>" : `op-${i}`,
      note: i === 21 ? "<script>x</script>" : "",
      decidedAt: at(i),
    }));
    const page = visibleMarkup(
      renderTimelineHtml({
        events: sequenced(committedDrafts(invocation, [], "succeeded")),
        operations: [],
        participantDecisions: decisions,
      }),
    );
    const items = [...page.matchAll(/<li data-decision="([^"]+)">(.*?)<\/li>/g)];
    assert.equal(items.length, 20);
    assert.equal(items[0]?.[1], "execution_pause");
    assert.match(items[0]?.[2] ?? "", /white-cell &lt;b&gt;/);
    assert.match(items[0]?.[2] ?? "", /&lt;script&gt;x&lt;\/script&gt;/);
    assert.match(items[0]?.[2] ?? "", new RegExp(at(21)));
    assert.match(page, /data-decisions="22"/);
    assert.match(page, /and 2 earlier/);
  });

  it("reads the participant decisions from the store's operator chain, leaving tool-action decisions to their details", async () => {
    const store = new MemoryControlPlaneStore();
    const draft = (kind: "resume" | "resolve", subject: string, operator: string) => ({
      kind,
      subject,
      operator,
      note: "",
      decided_at: at(1),
    });
    await store.recordDecision(draft("resume", P, "alice"), []);
    await store.recordDecision(draft("resume", "participant.behavior.beta", "bob"), []);
    await store.recordDecision(draft("resolve", "tool=1", "carol"), []);
    const all = await readTimelineInput(store, {});
    assert.deepEqual(
      all.participantDecisions?.map((d) => [d.kind, d.participantAddress, d.operator]),
      [
        ["resume", P, "alice"],
        ["resume", "participant.behavior.beta", "bob"],
      ],
    );
    const one = await readTimelineInput(store, { participantAddress: P });
    assert.deepEqual(
      one.participantDecisions?.map((d) => d.operator),
      ["alice"],
    );
  });
});
