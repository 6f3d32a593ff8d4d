import {
  ChainVerifier,
  type StoreReport,
  storeFailure,
  verifyStore,
  verifyStoreAfter,
} from "../evidence/index.js";
import type { HistoryEvent } from "../history/index.js";
import { approvalsLapsed, type Operation, readParticipantServices } from "../operations/index.js";
import { continuationView } from "../runtime/index.js";
import {
  type ControlPlaneStore,
  eventPages,
  type HistoryQuery,
  operationPages,
  type ResourceBudgetEventRecord,
  type ResourceEventCounts,
  resourceUseRows,
} from "../store/index.js";
import {
  type GroupedInvocation,
  InterleavedHistoryError,
  InvocationGrouper,
  joinOperations,
  operationIds,
  type PacingDeviation,
  type ParticipantDecision,
  type PendingApproval,
  type TimelineChain,
  type TimelineEvent,
  type TimelineInput,
  type TimelineScheduler,
  type TimelineService,
} from "./model/index.js";
import {
  FilePanels,
  OneParticipantPanels,
  PageSummary,
  type PanelStore,
  SecondParticipantError,
  summarizeInput,
} from "./render/index.js";

/** From this many actions on, the timeline lists operations in one read rather than one read each. */
export const LISTED_FROM = 64;

/**
 * The operations of `ids`, in their order. Many (a long run) come from one listing of the shown
 * participant's operations, or of all, which the history shown covers: not a round trip each. An
 * episode's, or a bounded tail's, are read one by one, as a listing would hold every other one too.
 */
async function operationsOf(
  store: ControlPlaneStore,
  ids: ReadonlySet<string>,
  query: HistoryQuery,
  listedFrom: number,
  tail: boolean,
): Promise<Operation[]> {
  let found: (Operation | undefined)[];
  // A tail's ids are bounded by its length, while a listing would read every older operation too.
  if (ids.size < listedFrom || query.episodeId !== undefined || tail) {
    found = await Promise.all([...ids].map((id) => store.getOperation(id)));
  } else {
    const listing = operationPages(store, {
      ...(query.participantAddress === undefined ? {} : { participantAddress: query.participantAddress }),
      limit: Number.MAX_SAFE_INTEGER,
    });
    // A page at a time, keeping only the operations the history shows.
    const byId = new Map<string, Operation>();
    // Newest first, so the operations of a recent tail are found first: the listing stops once all are.
    for await (const page of listing) {
      for (const { participantAddress: _, createdAt: __, ...operation } of page)
        if (ids.has(operation.id)) byId.set(operation.id, operation);
      if (byId.size === ids.size) break;
    }
    found = [...ids].map((id) => byId.get(id));
  }
  return found.filter((operation): operation is Operation => operation !== undefined);
}

/**
 * Events per page the streamed page reads: few enough that a page's events, held until their
 * invocations are drawn, rarely outlive a young-generation collection (docs/hardening.md), while
 * each page still reads its operations in one call.
 */
const DRAWN_PAGE = 250;

/** How a live view bounds what it reads (`raes serve`); the whole history and a fresh `raes verify` when absent. */
export interface TimelineReadOptions {
  /** Keep only the last this many events, so memory and the page stay bounded as the history grows. */
  readonly lastEvents?: number;
  /**
   * The chain status to show when the caller already has it, or null to show none: either way the
   * store's chains are not recomputed.
   */
  readonly chain?: TimelineChain | null;
}

/**
 * Reads what the timeline shows: the events, the operation of every action in them, and the
 * schedulers; from `listedFrom` actions on, the operations in one listing.
 */
export async function readTimelineInput(
  store: ControlPlaneStore,
  query: HistoryQuery = {},
  listedFrom = LISTED_FROM,
  options: TimelineReadOptions = {},
): Promise<TimelineInput> {
  const events: TimelineEvent[] = [];
  const strings = new Map<string, string>();
  const last = options.lastEvents;
  let verifier: ChainVerifier | undefined;
  // Read a page at a time, keeping of each event only what the page draws, its strings shared with
  // the equal ones before it: a long history repeats its addresses, phases and ids in every event
  // (docs/hardening.md).
  if (last !== undefined) {
    // Read from the end: the last N cost the same however long the history grew (`raes serve`'s frames).
    const { afterSequence: _after, limit: _limit, ...filters } = query;
    for (const event of await store.listEvents({ ...filters, last }))
      events.push(timelineEvent(event, strings));
  } else {
    // The whole history, read in commit order, is what `raes verify` reads: its chains are recomputed
    // as it is read, not in a second read, as `readTimelinePage` does (docs/hardening.md).
    verifier =
      options.chain === undefined && wholeHistory(query)
        ? new ChainVerifier(await store.listChainHeads())
        : undefined;
    for await (const page of eventPages(store, query))
      for (const event of page) {
        verifier?.add(event);
        events.push(timelineEvent(event, strings));
      }
  }
  const ids = new Set<string>();
  for (const event of events) {
    ids.add(event.action_instance_id);
    if (event.invocation_tool_context) ids.add(event.invocation_tool_context.invocation_action_instance_id);
  }
  const operations = await operationsOf(store, ids, query, listedFrom, last !== undefined);
  const inHistory = new Set(events.map((event) => event.participant_address));
  const schedulers = await schedulersShown(store, query, inHistory);
  const pendingApprovals = await pendingApprovalsOf(store, query);
  const participantDecisions = await participantDecisionsOf(store, query);
  const pacingDeviations = await pacingDeviationsOf(store, query);
  const services = await servicesOf(store, query);
  const chain =
    options.chain !== undefined
      ? options.chain
      : verifier !== undefined
        ? chainBadge(await verifyStoreAfter(store, verifier.finish()))
        : await chainStatus(store);
  return {
    events,
    operations,
    schedulers,
    ...(chain === null ? {} : { chain }),
    pendingApprovals,
    participantDecisions,
    pacingDeviations,
    services,
  };
}

/** Decisions about a tool action, which its details panel shows; every other kind is about a participant or a clock. */
const TOOL_ACTION_DECISIONS: ReadonlySet<string> = new Set(["resolve", "approve", "deny"]);
/** Operator decisions read per page, and the most one page of the timeline reads (newest kept per participant). */
const DECISION_PAGE = 1000;
const DECISIONS_READ = 100_000;
const DECISIONS_KEPT = 200;

/**
 * The operator decisions whose subject is a participant (of the shown one, or of all), oldest first:
 * who resumed, paused, drained or reset it, and when. Read a page at a time, keeping each
 * participant's newest, so the page stays bounded however long the operator chain grew.
 */
async function participantDecisionsOf(
  store: ControlPlaneStore,
  query: HistoryQuery,
): Promise<ParticipantDecision[]> {
  const kept = new Map<string, ParticipantDecision[]>();
  for (let after = 0; after < DECISIONS_READ; ) {
    const page = await store.readDecisionPage(after, DECISION_PAGE);
    for (const d of page) {
      if (TOOL_ACTION_DECISIONS.has(d.kind)) continue;
      if (query.participantAddress !== undefined && d.subject !== query.participantAddress) continue;
      const list = kept.get(d.subject) ?? [];
      list.push({
        kind: d.kind,
        participantAddress: d.subject,
        operator: d.operator,
        note: d.note,
        decidedAt: d.decided_at,
        ...(d.policy_address === undefined
          ? {}
          : {
              policyChange: {
                policyAddress: d.policy_address,
                previousDigest: d.previous_policy_digest ?? "",
                digest: d.policy_digest ?? "",
              },
            }),
      });
      if (list.length > DECISIONS_KEPT) list.shift();
      kept.set(d.subject, list);
    }
    if (page.length < DECISION_PAGE) break;
    after = page[page.length - 1]?.sequence ?? after + DECISION_PAGE;
  }
  return [...kept.values()].flat();
}

/** The stored pacing deviations (schema step 20) of the shown participant, or of all: few, one per clock generation. */
async function pacingDeviationsOf(store: ControlPlaneStore, query: HistoryQuery): Promise<PacingDeviation[]> {
  return (await store.listPacingDeviations(query.participantAddress)).map((d) => ({
    participantAddress: d.participantAddress,
    ref: d.ref,
    clockAddress: d.clockAddress,
    latenessMs: d.latenessMs,
    boundMs: d.boundMs,
    recordedAt: d.recordedAt,
  }));
}

/**
 * The execution services (schema step 17) of the shown participant, or of all, as every readback shows
 * them now: an abandoned drain put back, the stored pacing deviations joined (`serviceReadback`).
 */
async function servicesOf(store: ControlPlaneStore, query: HistoryQuery): Promise<TimelineService[]> {
  return (await readParticipantServices(store, query.participantAddress)).map(
    ({ participantAddress, service }) => ({
      participantAddress,
      lifecycle: service.observed_lifecycle,
      health: service.health,
      generation: service.generation,
      acceptingNewWork: service.accepting_new_work,
    }),
  );
}

/** The calls held for approval that nobody has decided yet, of the shown participant or of all. */
async function pendingApprovalsOf(store: ControlPlaneStore, query: HistoryQuery): Promise<PendingApproval[]> {
  // Held calls are admitted (accepted) until decided: few at any time, and not in history yet.
  const accepted = await store.listOperations({
    kind: "tool_action",
    state: "accepted",
    ...(query.participantAddress === undefined ? {} : { participantAddress: query.participantAddress }),
    limit: 10_000,
  });
  // A call whose approve would be refused (timed out, its runtime gone) is offered a deny only;
  // each participant's runtime is asked after once, however many calls it holds.
  const lapses = await approvalsLapsed(store, accepted);
  const held: PendingApproval[] = [];
  for (const entry of accepted) {
    if (entry.approval?.state !== "pending") continue;
    const lapsed = lapses.get(entry.id);
    held.push({
      id: entry.id,
      participantAddress: entry.participantAddress,
      ...(entry.toolName === undefined ? {} : { toolName: entry.toolName }),
      requestedAt: entry.approval.requestedAt,
      timeoutSeconds: entry.approval.timeoutSeconds,
      ...(lapsed === undefined ? {} : { lapsed: { code: lapsed.code, message: lapsed.message } }),
    });
  }
  return held;
}

/** The schedulers the timeline shows: a participant filter keeps its scheduler even before its first event; an episode filter shows only participants in it. */
async function schedulersShown(
  store: ControlPlaneStore,
  query: HistoryQuery,
  inHistory: ReadonlySet<string>,
): Promise<TimelineScheduler[]> {
  const shown = (address: string) =>
    query.participantAddress !== undefined
      ? address === query.participantAddress
      : query.episodeId === undefined || inHistory.has(address);
  const schedulers = (await store.listSchedulers()).filter((scheduler) =>
    shown(scheduler.participantAddress),
  );
  const out: TimelineScheduler[] = [];
  const withEvents = new Set<string>();
  for (const scheduler of schedulers) {
    // A participant's budget events go with its first v3 scheduler: the store keeps them per participant.
    const first = scheduler.resources !== undefined && !withEvents.has(scheduler.participantAddress);
    if (first) withEvents.add(scheduler.participantAddress);
    out.push({
      participantAddress: scheduler.participantAddress,
      lifecycle: scheduler.lifecycle,
      ...(scheduler.stopReason === undefined ? {} : { stopReason: scheduler.stopReason }),
      ...(scheduler.activity === undefined ? {} : { continuation: continuationView(scheduler.activity) }),
      ...(scheduler.resources === undefined ? {} : { budgets: resourceUseRows([scheduler]) }),
      ...(first ? { budgetEvents: await participantBudgetEvents(store, scheduler.participantAddress) } : {}),
    });
  }
  return out;
}

/** How many budget events the timeline lists per participant: the most recent; the rest are counted. */
export const TIMELINE_BUDGET_EVENTS = 10;

/** A participant's budget events as the timeline shows them: how many, and the most recent. */
async function participantBudgetEvents(
  store: ControlPlaneStore,
  participantAddress: string,
): Promise<{ counts: ResourceEventCounts; recent: ResourceBudgetEventRecord[] }> {
  const logged = await store.countBudgetEvents(participantAddress);
  const recent = await store.listBudgetEvents({
    participantAddress,
    last: TIMELINE_BUDGET_EVENTS,
    limit: TIMELINE_BUDGET_EVENTS,
  });
  return { counts: { logged, kept: logged }, recent };
}

/** A timeline page read from a store, ready to write (`summaryHtmlParts`), and its chain badge if shown. */
export interface TimelinePage {
  readonly page: PageSummary;
  readonly chain?: TimelineChain;
}

/** What the streamed page shows besides the history: the chain badge as readTimelineInput's option. */
export type TimelinePageOptions = Pick<TimelineReadOptions, "chain">;

/**
 * Reads what the timeline page shows in one pass over the history, a page of events at a time: each
 * invocation is drawn (its row kept, its panels made and set aside in a file) as soon as its
 * participant's next event shows it complete, with its own operations read by id, and its events
 * are dropped. Memory holds the rows, not the history (docs/hardening.md). A history whose
 * invocations' events are interleaved within a participant is read whole instead
 * (`readTimelineInput`). Close the page's panels (`page.panels.close()`) if it is not written.
 */
export async function readTimelinePage(
  store: ControlPlaneStore,
  query: HistoryQuery,
  storeUrl: string,
  options: TimelinePageOptions = {},
): Promise<TimelinePage> {
  // One participant's panels go into blocks as they come; several participants' wait for their order.
  const one = query.participantAddress !== undefined || (await store.listChainHeads()).length <= 1;
  try {
    return await readPage(
      store,
      query,
      storeUrl,
      options,
      one ? new OneParticipantPanels() : new FilePanels(),
    );
  } catch (error) {
    if (!(error instanceof SecondParticipantError)) throw error;
    return readPage(store, query, storeUrl, options, new FilePanels());
  }
}

async function readPage(
  store: ControlPlaneStore,
  query: HistoryQuery,
  storeUrl: string,
  options: TimelinePageOptions,
  panels: PanelStore,
): Promise<TimelinePage> {
  try {
    const page = new PageSummary(storeUrl, panels);
    const grouper = new InvocationGrouper();
    const seen = new Set<string>();
    // The whole history, read in commit order, is what `raes verify` reads: its chains are recomputed
    // as the page reads it, not in a second read (docs/hardening.md). The heads are read first, as
    // `verifyStore` reads them.
    const verifier =
      options.chain === undefined && wholeHistory(query)
        ? new ChainVerifier(await store.listChainHeads())
        : undefined;
    for await (const events of eventPages(store, query, DRAWN_PAGE)) {
      const completed: GroupedInvocation[] = [];
      for (const event of events) {
        verifier?.add(event);
        page.addEvent(event);
        seen.add(event.participant_address);
        const done = grouper.add(event);
        if (done) completed.push(done);
      }
      await draw(store, page, completed);
    }
    await draw(store, page, grouper.finish());
    for (const scheduler of await schedulersShown(store, query, seen)) page.addScheduler(scheduler);
    for (const held of await pendingApprovalsOf(store, query)) page.addPendingApproval(held);
    for (const decision of await participantDecisionsOf(store, query)) page.addDecision(decision);
    for (const deviation of await pacingDeviationsOf(store, query)) page.addPacingDeviation(deviation);
    for (const service of await servicesOf(store, query)) page.addService(service);
    const chain =
      options.chain !== undefined
        ? options.chain
        : verifier !== undefined
          ? chainBadge(await verifyStoreAfter(store, verifier.finish()))
          : await chainStatus(store);
    return { page, ...(chain === null ? {} : { chain }) };
  } catch (error) {
    panels.close();
    if (!(error instanceof InterleavedHistoryError)) throw error;
    const input = await readTimelineInput(store, query, LISTED_FROM, options);
    return {
      page: summarizeInput({ ...input, storeUrl }),
      ...(input.chain === undefined ? {} : { chain: input.chain }),
    };
  }
}

/**
 * Joins completed invocations to their operations and draws them: every operation they show (each
 * invocation's own and its tool actions') read in one call.
 */
async function draw(
  store: ControlPlaneStore,
  page: PageSummary,
  completed: readonly GroupedInvocation[],
): Promise<void> {
  if (completed.length === 0) return;
  const ids = completed.flatMap(operationIds);
  const found = await store.getOperations(ids);
  const byId = new Map<string, Operation>();
  ids.forEach((id, k) => {
    const operation = found[k];
    if (operation) byId.set(id, operation);
  });
  for (const invocation of completed)
    page.addInvocation(
      invocation.participantAddress,
      joinOperations(invocation, (id) => byId.get(id)),
    );
}

/** Whether `query` reads every event of the store: no filter (its page bounds aside, as eventPages reads). */
function wholeHistory(query: HistoryQuery): boolean {
  return query.participantAddress === undefined && query.episodeId === undefined && query.last === undefined;
}

/** Every chain of the store recomputed, as `raes verify` does, for the header's badge. */
async function chainStatus(store: ControlPlaneStore): Promise<TimelineChain> {
  return chainBadge(await verifyStore(store));
}

/** The header's badge of a store's report: its verdict and first failure are `raes verify --store`'s own. */
function chainBadge(report: StoreReport): TimelineChain {
  const failure = storeFailure(report);
  return {
    ok: report.ok,
    events: report.events,
    ...(report.ok ? { decisions: report.operator.decisions } : {}),
    ...(failure === undefined ? {} : { failure }),
  };
}

/**
 * What the timeline keeps of a history event (TimelineEvent), its strings shared through `seen`:
 * not its event id, chain digest, execution scope or the rest of its temporal contexts, which the
 * page never shows.
 */
export function timelineEvent(event: HistoryEvent, seen: Map<string, string>): TimelineEvent {
  const share = (value: string): string => {
    const known = seen.get(value);
    if (known !== undefined) return known;
    seen.set(value, value);
    return value;
  };
  const kept: { -readonly [K in keyof TimelineEvent]: TimelineEvent[K] } = {
    sequence: event.sequence,
    event_type: share(event.event_type) as TimelineEvent["event_type"],
    timestamp: event.timestamp,
    participant_address: share(event.participant_address),
    episode_id: share(event.episode_id),
    action_instance_id: share(event.action_instance_id),
    action_contract_address: share(event.action_contract_address),
    lifecycle_phase: share(event.lifecycle_phase),
    temporal_contexts: event.temporal_contexts.map((c) => ({
      observation_point: share(c.observation_point),
    })),
  };
  if (event.actor_provenance !== undefined) kept.actor_provenance = share(event.actor_provenance);
  if (event.observation_boundary_address !== undefined)
    kept.observation_boundary_address = share(event.observation_boundary_address);
  if (event.observation_status !== undefined)
    kept.observation_status = share(event.observation_status) as NonNullable<
      TimelineEvent["observation_status"]
    >;
  if (event.post_state_digest !== undefined) kept.post_state_digest = share(event.post_state_digest);
  if (event.action_result !== undefined) kept.action_result = shareStrings(event.action_result, seen);
  if (event.invocation_tool_context !== undefined)
    kept.invocation_tool_context = shareStrings(event.invocation_tool_context, seen);
  if (event.activity_provenance !== undefined)
    kept.activity_provenance = shareStrings(event.activity_provenance, seen);
  return kept;
}

/**
 * A copy of `value` whose strings are the first equal ones seen (kept in `seen`): equal strings
 * parsed from different rows are different copies until shared. The value is left as it was (a
 * memory store hands out its own records).
 */
export function shareStrings<T>(value: T, seen: Map<string, string>): T {
  if (typeof value === "string") {
    const known = seen.get(value);
    if (known !== undefined) return known as T;
    seen.set(value, value);
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => shareStrings(item, seen)) as T;
  if (value === null || typeof value !== "object") return value;
  // fromEntries defines each key as its own property, an own `__proto__` key included.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [shareStrings(key, seen), shareStrings(item, seen)]),
  ) as T;
}
