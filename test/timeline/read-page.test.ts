import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, it } from "node:test";
import { verifyStore } from "../../src/evidence/index.js";
import type { HistoryEvent } from "../../src/history/index.js";
import { approvalLapsed } from "../../src/operations/index.js";
import { type ControlPlaneStore, MemoryControlPlaneStore } from "../../src/store/index.js";
import {
  readTimelineInput,
  readTimelinePage,
  renderTimelineHtml,
  summaryHtmlParts,
} from "../../src/timeline/index.js";
import { InterleavedHistoryError, InvocationGrouper } from "../../src/timeline/model/index.js";
import { attributeValues, visibleMarkup } from "../fixtures/history/html.js";
import { runKnownHistory } from "../fixtures/history/scripted-run.js";
import { EXAMPLE } from "../helpers/example.js";
import { writeHeldCall } from "../helpers/held-call.js";
import { invocation, scheduler, toolAction } from "../store/records.js";

const STORE_URL = "sqlite:/s.db";

/**
 * `store` seen through `change`: each call named in `calls` is counted, and the events of `listEvents`
 * and of `readChainPage` (the chain badge's read) rewritten alike.
 */
function seen(
  store: ControlPlaneStore,
  change: {
    readonly event?: (event: HistoryEvent) => HistoryEvent;
    readonly heads?: number;
    readonly reorder?: (events: HistoryEvent[]) => HistoryEvent[];
  } = {},
): { store: ControlPlaneStore; calls: Map<string, number>; listings: unknown[] } {
  const calls = new Map<string, number>();
  const listings: unknown[] = [];
  const proxy = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const name = String(property);
      // The memory store's snapshot is its live reads: read through this proxy too.
      if (name === "readSnapshot") return (work: (reads: unknown) => unknown) => work(proxy);
      return async (...args: unknown[]) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        if (name === "listOperations") listings.push(args[0]);
        const answer = await value.apply(target, args);
        if (name === "listEvents" || name === "readChainPage") {
          const events = (answer as HistoryEvent[]).map(change.event ?? ((e) => e));
          return change.reorder ? change.reorder(events) : events;
        }
        if (name === "listChainHeads" && change.heads !== undefined)
          return Array.from({ length: change.heads }, (_, i) => (answer as unknown[])[0] ?? i);
        return answer;
      };
    },
  });
  return { store: proxy, calls, listings };
}

/** The page `raes history --html` writes, from `readTimelinePage`. */
async function streamedPage(store: ControlPlaneStore): Promise<string> {
  const { page, chain } = await readTimelinePage(store, {}, STORE_URL);
  return [...summaryHtmlParts(page, { chain })].join("");
}

/** The page drawn from the whole history held in memory. */
async function wholePage(store: ControlPlaneStore): Promise<string> {
  return renderTimelineHtml({ ...(await readTimelineInput(store)), storeUrl: STORE_URL });
}

/** The known history with its first two invocations moved to a second participant, which needs no operator. */
function twoParticipants(first: ReadonlySet<string>) {
  return (event: HistoryEvent): HistoryEvent => {
    const invocation =
      event.invocation_tool_context?.invocation_action_instance_id ?? event.action_instance_id;
    return first.has(invocation) ? { ...event, participant_address: "participant.second" } : event;
  };
}

async function firstInvocations(store: ControlPlaneStore, n: number): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const event of await store.listEvents()) {
    const invocation =
      event.invocation_tool_context?.invocation_action_instance_id ?? event.action_instance_id;
    if (ids.size < n || ids.has(invocation)) ids.add(invocation);
    else break;
  }
  return ids;
}

describe("readTimelinePage: the timeline drawn one invocation at a time", () => {
  it("writes the page the whole history draws, byte for byte, reading each page's operations in one call", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const streamed = seen(inner);
    const page = await streamedPage(streamed.store);
    assert.equal(page, await wholePage(inner));
    // The listings are of the calls still held for approval (admitted, undecided) and, for the chain
    // badge, of the tool actions whose resolutions it checks, a page at a time: a resolution on one
    // that is not indeterminate fails too, so every tool action is read, never an invocation.
    assert.deepEqual(streamed.listings, [
      { kind: "tool_action", state: "accepted", limit: 10_000 },
      { kind: "tool_action", limit: 1000 },
    ]);
    // The operations of each page of events are read in one call, never one read per id or per invocation.
    const batches = streamed.calls.get("getOperations") ?? 0;
    assert.ok(batches > 0, "the operations read with their events");
    assert.ok(batches <= (streamed.calls.get("listEvents") ?? 0) + 1, "one read per page of events");
    assert.equal(streamed.calls.get("getOperation"), undefined);
    assert.equal(streamed.calls.get("listToolActions"), undefined);
  });

  it("lists the calls held for approval and shows the chain badge as the whole history draws them", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    // A call admitted and held for approval, of a participant whose scheduler is running: not in history.
    const inv = invocation();
    await inner.openInvocation(inv, scheduler({ attempts: 1 }));
    const admitted = toolAction(inv, 1);
    await inner.insertToolAction(admitted);
    const held = {
      state: "pending",
      requestedAt: "2025-01-02T00:00:00.000000Z",
      timeoutSeconds: 300,
    } as const;
    assert.equal(await inner.recordApproval(admitted.id, held, undefined), true);
    const page = await streamedPage(inner);
    assert.equal(page, await wholePage(inner));
    const visible = visibleMarkup(page);
    assert.deepEqual(attributeValues(visible, "data-pending-approval"), [admitted.id]);
    assert.match(visible, /1 tool call waits for approval/);
    assert.match(visible, /data-chain="verified"/);
    // A chain status given by the caller is shown as given, and none when null: the chains not recomputed.
    const { page: quiet } = await readTimelinePage(inner, {}, STORE_URL, { chain: null });
    assert.doesNotMatch([...summaryHtmlParts(quiet)].join(""), /data-chain=/);
  });

  it("offers only the deny of a held call whose approve would be refused (timed out, its runtime gone), and says why as --needs-operator does", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const open = await writeHeldCall(inner, "participant.held.open", "open");
    const gone = await writeHeldCall(inner, "participant.held.gone", "runtime-gone");
    const late = await writeHeldCall(inner, "participant.held.late", "timed-out");
    const page = await streamedPage(inner);
    assert.equal(page, await wholePage(inner));
    const visible = visibleMarkup(page);
    const item = (id: string) =>
      new RegExp(`<li data-pending-approval="${id.replace(/[.]/g, "\\.")}">.*?</li>`).exec(visible)?.[0] ??
      "";
    assert.deepEqual(attributeValues(item(open), "data-decision"), ["approve", "deny"]);
    assert.deepEqual(attributeValues(item(open), "data-no-approve"), []);
    for (const [id, code] of [
      [gone, "approval.runtime-gone"],
      [late, "approval.expired"],
    ] as const) {
      assert.deepEqual(attributeValues(item(id), "data-decision"), ["deny"], item(id));
      assert.deepEqual(attributeValues(item(id), "data-no-approve"), [code]);
      // The reason in approve's own words, as `raes operations --needs-operator` prints it.
      const why = await approvalLapsed(inner, id);
      assert.equal(why?.code, code);
      assert.ok(item(id).includes(`>(no approve: ${why?.message})</span>`), item(id));
    }
  });

  it("orders several participants as the page does (those that need an operator first), whichever panel store holds them", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const moved = twoParticipants(await firstInvocations(inner, 2));
    const expected = await wholePage(seen(inner, { event: moved }).store);
    assert.match(expected, /data-participants="2"/);
    // The store's heads say one participant: the page restarts with the panels of several.
    assert.equal(await streamedPage(seen(inner, { event: moved }).store), expected);
    // The heads say two: the panels of several from the start.
    assert.equal(await streamedPage(seen(inner, { event: moved, heads: 2 }).store), expected);
  });

  it("draws a history whose invocations' events interleave within a participant from the whole history", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    // The first event moved to the end of the page: its invocation comes back after a later one's events.
    const interleaved = seen(inner, { reorder: (events) => [...events.slice(1), ...events.slice(0, 1)] });
    assert.equal(await streamedPage(interleaved.store), await wholePage(interleaved.store));
  });

  it("recomputes the chains of a whole history as it reads it, never reading the history again for the badge", async () => {
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    const whole = seen(inner);
    const page = await streamedPage(whole.store);
    assert.equal(page, await wholePage(inner));
    const events = (await inner.listEvents()).length;
    assert.match(
      page,
      new RegExp(`data-chain="verified">History chain verified: ${events} events recomputed`),
    );
    assert.equal(whole.calls.get("readChainPage"), undefined, "the history read once");
    // Its third event edited after it was committed: the badge names it as `raes verify` does.
    const edited = seen(inner, {
      event: (e) => (e.sequence === 3 ? { ...e, timestamp: "2020-01-01T00:00:00.000000Z" } : e),
    });
    const report = await verifyStore(edited.store);
    assert.equal(report.failure?.kind, "edited");
    const broken = await streamedPage(edited.store);
    assert.equal(broken, await wholePage(edited.store));
    assert.match(
      broken,
      new RegExp(
        `data-chain="broken" role="alert">Evidence does not verify: chain broken: edited event: participant ${EXAMPLE.participant}, sequence 3: `,
      ),
    );
    // A participant's page is not the whole history: the badge's chains are read on their own.
    const one = seen(inner);
    await readTimelinePage(one.store, { participantAddress: EXAMPLE.participant }, STORE_URL);
    assert.ok((one.calls.get("readChainPage") ?? 0) > 0);
  });

  it("leaves no scratch file behind", async () => {
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith("raes-timeline-panels-")).length;
    const inner = new MemoryControlPlaneStore();
    await runKnownHistory(inner);
    await streamedPage(inner);
    const { page } = await readTimelinePage(inner, {}, STORE_URL);
    page.panels.close();
    const after = readdirSync(tmpdir()).filter((name) => name.startsWith("raes-timeline-panels-")).length;
    assert.equal(after, before);
  });
});

describe("InvocationGrouper", () => {
  it("gives each invocation back as soon as its participant's next invocation begins, holding one open per participant", async () => {
    const store = new MemoryControlPlaneStore();
    await runKnownHistory(store);
    const events = await store.listEvents();
    const grouper = new InvocationGrouper();
    const completed: string[] = [];
    for (const [i, event] of events.entries()) {
      const done = grouper.add(event);
      if (done) {
        completed.push(done.id);
        const next =
          events[i]?.invocation_tool_context?.invocation_action_instance_id ?? event.action_instance_id;
        assert.notEqual(done.id, next, "completed when another invocation's event arrives");
        assert.ok(
          done.outerEvents.every((e) => e.sequence < event.sequence),
          "every event of the completed invocation came before",
        );
      }
    }
    const last = grouper.finish();
    assert.equal(last.length, 1);
    assert.equal(completed.length + last.length, 4, "the known history's four invocations");
  });

  it("refuses an event of an invocation its participant had moved on from", async () => {
    const store = new MemoryControlPlaneStore();
    await runKnownHistory(store);
    const events = await store.listEvents();
    const grouper = new InvocationGrouper();
    const [first, ...rest] = events;
    assert.ok(first);
    for (const event of rest) grouper.add(event);
    assert.throws(() => grouper.add(first), InterleavedHistoryError);
  });
});
