import type { PoolClient } from "pg";
import {
  type CanonicalCache,
  type ChainHead,
  canonicalAroundSequence,
  chainGenesis,
  UNANCHORED,
} from "../../records/index.js";
import { ChainLinker } from "../chain.js";
import { leaseLost, StoreConflictError } from "../errors.js";
import {
  CHAIN_COLUMNS,
  type ChainRow,
  chainHead,
  columnNames,
  fromExcluded,
  INVOCATION_CLOSE_COLUMNS,
  invocationCloseRow,
  TOOL_ACTION_SETTLE_COLUMNS,
} from "../sql/index.js";
import type { Fence, InvocationCommit, SchedulerRecord } from "../types.js";
import { CopyIn, CopyRows, copyCell, copyJsonCell } from "./copy.js";
import { FENCED, fenceValues, UNFENCED } from "./leases.js";
import {
  type Column,
  SCHEDULER_COLUMNS,
  schedulerValues,
  TOOL_ACTION_COLUMNS,
  toolActionRow,
  toolActionSettleRow,
} from "./rows.js";
import type { Queryable } from "./sticky.js";

/** Invocation closes per statement: large enough that round trips vanish, small enough to bound the JSON. */
const BATCH_SIZE = 500;

const list = (columns: readonly Column[]) => columnNames(columns).join(", ");
const typed = (columns: readonly Column[]) => columns.map(([n, t]) => `${n} ${t}`).join(", ");
const assign = (columns: readonly Column[]) => columns.map(([n]) => `${n} = t.${n}`).join(", ");
const recordset = (param: number, columns: readonly Column[]) =>
  `json_to_recordset($${param}::json) AS t(${typed(columns)})`;
const ID: Column = ["id", "text"];
// The events' key columns and chain texts go as JSON arrays of strings, not text[]: the driver builds
// an array literal by escaping each element in JavaScript, which costs more than the rest of a close's
// parameters together when the texts around each sequence are long; JSON.stringify escapes natively.
/** The strings of the JSON array parameter `$param`, in order, as a set-returning call for ROWS FROM. */
const jsonTexts = (param: number) => `json_array_elements_text($${param}::json)`;
/** The strings of the JSON array parameter `$param` as a text[], in order. */
const jsonTextArray = (param: number) =>
  `ARRAY(SELECT v FROM json_array_elements_text($${param}::json) WITH ORDINALITY AS x(v, n) ORDER BY n)`;
/** What a close writes of an invocation: its id and the columns a close changes. */
const CLOSE_COLUMNS: readonly Column[] = [ID, ...INVOCATION_CLOSE_COLUMNS];
/** A close's invocation update ($3 the closes, $4 their count): `complete` says whether every one closed. */
const CLOSE = `  written AS (UPDATE invocations AS i SET ${assign(INVOCATION_CLOSE_COLUMNS)}
    FROM ${recordset(3, CLOSE_COLUMNS)}
    WHERE i.id = t.id AND i.state = 'running' AND EXISTS (SELECT 1 FROM fence) RETURNING 1),
  complete AS (SELECT count(*) = $4::bigint AS ok FROM written),
`;
/**
 * A close's settlements ($5 the tool actions, as `columns`): each stored action found is updated by
 * the columns its later steps change; `settled` names those found.
 */
const SETTLE = (
  columns: readonly Column[],
) => `  actions AS MATERIALIZED (SELECT * FROM ${recordset(5, columns)}),
  settled AS (UPDATE tool_actions AS a SET ${assign(TOOL_ACTION_SETTLE_COLUMNS)}
    FROM actions AS t
    WHERE a.id = t.id AND (SELECT ok FROM complete) RETURNING a.id),
`;
/**
 * The closes and settlements of the one-statement commit ($5 the tool actions, whole): a stored
 * action is updated, one the update did not find is inserted.
 */
const CLOSE_AND_SETTLE = `${CLOSE}${SETTLE(TOOL_ACTION_COLUMNS)}  added AS (
    INSERT INTO tool_actions (${list(TOOL_ACTION_COLUMNS)})
    SELECT ${list(TOOL_ACTION_COLUMNS)} FROM actions AS t
    WHERE (SELECT ok FROM complete) AND NOT EXISTS (SELECT 1 FROM settled AS s WHERE s.id = t.id)
    RETURNING 1),
`;
/** A tool action's id and the columns its later steps change: what a slice sends of each. */
const SETTLE_COLUMNS: readonly Column[] = [ID, ...TOOL_ACTION_SETTLE_COLUMNS];

// Every part after the invocations' update runs only when that update closed every invocation of
// the batch; otherwise the caller rolls the transaction back. Rows change by the columns a close or
// a settlement changes; a stored tool action is updated in place (no ON CONFLICT, whose row lock is
// one more WAL record per row) and only one the update did not find is inserted (the actions' JSON
// parsed once, no index probed again for those just updated). Sequences are assigned from
// the history_head row lock, so they stay commit order without gaps.
// Each event's chain_digest is computed here, where its sequence is assigned: raes_chain_digests (the
// schema's step 13) walks the events in order, each chaining from its participant's digest before it
// in the batch, else its stored head, else its genesis; the RFC 8785 text around the sequence comes
// from the caller (canonicalAroundSequence), so the digest is the one every store computes
// (docs/evidence-format.md).
const COMMIT_BATCH = (fence: string) => `WITH ${fence},
${CLOSE_AND_SETTLE}  head AS (UPDATE history_head SET last_sequence = last_sequence + $6::bigint
    WHERE $6::bigint > 0 AND (SELECT ok FROM complete) RETURNING last_sequence),
  events AS MATERIALIZED (
    SELECT head.last_sequence - $6::bigint + e.n AS sequence, e.*
    FROM head CROSS JOIN ROWS FROM (json_array_elements($7::json), ${jsonTexts(9)}, ${jsonTexts(10)}, ${jsonTexts(11)},
      ${jsonTexts(14)}, ${jsonTexts(15)}) WITH ORDINALITY
      AS e(body, participant_address, episode_id, action_instance_id, scenario_digest, manifest_digest, n)),
  linked AS MATERIALIZED (
    SELECT t.digest, t.n FROM head CROSS JOIN unnest(raes_chain_digests(${jsonTextArray(9)}, ${jsonTextArray(12)},
      ${jsonTextArray(13)}, ${jsonTextArray(16)}, head.last_sequence - $6::bigint + 1)) WITH ORDINALITY AS t(digest, n)),
  appended AS (
    INSERT INTO history_events (sequence, participant_address, episode_id, action_instance_id, body,
      chain_digest)
    SELECT e.sequence, e.participant_address, e.episode_id, e.action_instance_id, e.body, l.digest
    FROM events AS e JOIN linked AS l ON l.n = e.n RETURNING 1),
  chained AS (
    INSERT INTO history_chains (participant_address, scenario_digest, manifest_digest, head_digest,
      head_sequence, events, backfilled_at)
    SELECT DISTINCT ON (e.participant_address) e.participant_address, e.scenario_digest,
      e.manifest_digest, l.digest, e.sequence, count(*) OVER (PARTITION BY e.participant_address), NULL
    FROM events AS e JOIN linked AS l ON l.n = e.n
    ORDER BY e.participant_address, e.n DESC
    ON CONFLICT (participant_address) DO UPDATE SET head_digest = excluded.head_digest,
      head_sequence = excluded.head_sequence, events = history_chains.events + excluded.events
    RETURNING 1),
  scheduled AS (
    INSERT INTO schedulers (${list(SCHEDULER_COLUMNS)})
    SELECT ${list(SCHEDULER_COLUMNS)} FROM ${recordset(8, SCHEDULER_COLUMNS)}
    WHERE (SELECT ok FROM complete)
    ON CONFLICT (participant_address, policy_address)
    DO UPDATE SET ${fromExcluded(columnNames(SCHEDULER_COLUMNS), ["participant_address", "policy_address"])} RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM fence) AS fenced, (SELECT ok FROM complete) AS written`;

const STATEMENT = {
  fenced: { name: "raes_commit_batch_fenced", text: COMMIT_BATCH(FENCED) },
  unfenced: { name: "raes_commit_batch", text: COMMIT_BATCH(UNFENCED) },
};

// A transaction of several slices locks history_head first (held to the commit, it keeps every other
// appender out, so the sequences after its last_sequence are this transaction's and no chain head
// moves meanwhile), then reads the chain heads of the participants its events extend, so each event's
// chain_digest is computed here (ChainLinker, as the SQLite store does). The closes may be built as
// they are taken (an iterable): each slice is taken from the caller while the server runs the one
// before, so building them overlaps the server's work too. The slices close the invocations and settle
// their actions, the first one locking the fence's lease row to the commit; while the server runs each
// slice's statement, the events are linked in order and written as COPY text until it answers (up to
// a bound of text held); then history_head takes the last sequence and all events go in by one COPY,
// the rest linked as it runs: no text around each sequence, no digest loop in the server, no JSON
// array of bodies for it to parse.
const LOCK_SEQUENCES = "SELECT last_sequence FROM history_head FOR UPDATE";
const SET_LAST_SEQUENCE = "UPDATE history_head SET last_sequence = $1::bigint";
const CHAIN_HEADS = `SELECT ${CHAIN_COLUMNS.join(", ")} FROM history_chains WHERE participant_address = ANY($1::text[])`;
const SAVE_CHAINS = `INSERT INTO history_chains (${CHAIN_COLUMNS.join(", ")})
  SELECT ${CHAIN_COLUMNS.join(", ")} FROM json_to_recordset($1::json) AS t(participant_address text,
    scenario_digest text, manifest_digest text, head_digest text, head_sequence bigint, events bigint,
    backfilled_at text)
  ON CONFLICT (participant_address) DO UPDATE SET head_digest = excluded.head_digest,
    head_sequence = excluded.head_sequence, events = excluded.events`;
// A slice sends each tool action's id and later-step columns only (a recovery's request bodies are a
// quarter of what the server would parse otherwise), updates the stored ones, and names those the
// update did not find: the caller inserts them, whole, by a second statement in the transaction.
const COMMIT_SLICE = (fence: string) => `WITH ${fence},
${CLOSE}${SETTLE(SETTLE_COLUMNS)}  scheduled AS (
    INSERT INTO schedulers (${list(SCHEDULER_COLUMNS)})
    SELECT ${list(SCHEDULER_COLUMNS)} FROM ${recordset(6, SCHEDULER_COLUMNS)}
    WHERE (SELECT ok FROM complete)
    ON CONFLICT (participant_address, policy_address)
    DO UPDATE SET ${fromExcluded(columnNames(SCHEDULER_COLUMNS), ["participant_address", "policy_address"])} RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM fence) AS fenced, (SELECT ok FROM complete) AS written,
    ARRAY(SELECT t.id FROM actions AS t WHERE NOT EXISTS (SELECT 1 FROM settled AS s WHERE s.id = t.id))
      AS missing`;

/** The tool actions of a slice that were not stored yet, whole. */
const ADD_TOOL_ACTIONS = `INSERT INTO tool_actions (${list(TOOL_ACTION_COLUMNS)})
  SELECT ${list(TOOL_ACTION_COLUMNS)} FROM ${recordset(1, TOOL_ACTION_COLUMNS)}`;

/** Where the events of a transaction of several slices are copied to. */
const EVENTS_COPY =
  "history_events (sequence, participant_address, episode_id, action_instance_id, body, chain_digest)";

const SLICE_STATEMENT = {
  fenced: { name: "raes_commit_slice_fenced", text: COMMIT_SLICE(FENCED) },
  unfenced: { name: "raes_commit_slice", text: COMMIT_SLICE(UNFENCED) },
};

/**
 * Takes the closes from `source` in slices of `BATCH_SIZE`, as the caller builds them; refuses one that
 * closes an invocation a slice taken before closed (the transaction is then rolled back).
 */
export class CommitSlices {
  readonly #source: Iterator<InvocationCommit>;
  readonly #ids = new Set<string>();
  #done = false;

  constructor(commits: Iterable<InvocationCommit>) {
    this.#source = commits[Symbol.iterator]();
  }

  /** The next slice, built now; undefined once every close was taken. */
  next(): InvocationCommit[] | undefined {
    const slice: InvocationCommit[] = [];
    this.take(slice, Number.POSITIVE_INFINITY);
    return slice.length > 0 ? slice : undefined;
  }

  /**
   * Takes closes into `slice` for about `ms`; true once it holds `BATCH_SIZE` or every close was
   * taken. A caller inside a transaction takes a few at a time, so the driver reads its answers and
   * runs its timers in between, however slowly the closes are built.
   */
  take(slice: InvocationCommit[], ms: number): boolean {
    const until = performance.now() + ms;
    for (let n = 0; !this.#done && slice.length < BATCH_SIZE; n += 1) {
      // A close may take long to build: the clock is read before each one but the first.
      if (n > 0 && performance.now() >= until) return false;
      const step = this.#source.next();
      if (step.done === true) {
        this.#done = true;
        break;
      }
      const id = step.value.invocation.id;
      if (this.#ids.has(id)) throw new StoreConflictError("a batch closes one invocation twice");
      this.#ids.add(id);
      slice.push(step.value);
    }
    return true;
  }

  /** Lets the caller's generator end (its `finally` runs) when the closes are not all taken. */
  abandon(): void {
    if (this.#done) return;
    this.#done = true;
    try {
      this.#source.return?.();
    } catch {
      // The caller's own cleanup failed: the batch's outcome is already decided and is what throws.
    }
  }

  /** Whether every close was taken. */
  get done(): boolean {
    return this.#done;
  }
}

/**
 * Writes invocation closes in a few set-based statements inside the caller's transaction, not one
 * per invocation, so recovering thousands stays seconds; throws when the fence or any close fails,
 * or when taking a close from `slices` throws.
 */
export async function commitBatches(
  client: Pick<PoolClient, "query">,
  slices: CommitSlices,
  first: readonly InvocationCommit[],
  fence: Fence | undefined,
): Promise<void> {
  const events = new EventRows(await lockSequences(client));
  await events.add(client, first);
  // One statement ahead: the next slice is taken and its parameters built while the server runs
  // this one, and then events are linked until it answers.
  let next: ReturnType<typeof sliceQuery> | undefined = sliceQuery(first, fence);
  let current: readonly InvocationCommit[] = first;
  while (next !== undefined) {
    const running = client.query<SliceResult>(next);
    let answered = false;
    running.then(
      () => (answered = true),
      () => (answered = true),
    );
    // The statement in flight settles before a build failure is thrown, so no rejection goes unheard.
    let slice: InvocationCommit[] | undefined;
    let built: ReturnType<typeof sliceQuery> | Error | undefined;
    try {
      const taken: InvocationCommit[] = [];
      const started = performance.now();
      while (!slices.take(taken, TURN_MS)) {
        // Closes built slowly: once the statement before has answered, what is taken goes after a
        // while, rather than the session sitting idle in its transaction.
        if (answered && taken.length > 0 && performance.now() - started >= SLOW_SLICE_MS) break;
        await turn();
      }
      // Empty only once every close was taken: a slice is never cut before its first close.
      slice = taken.length > 0 ? taken : undefined;
      built = slice ? sliceQuery(slice, fence) : undefined;
      while (!answered && events.rows.buffered < LINKED_AHEAD && events.link()) await turn();
    } catch (error) {
      built = error instanceof Error ? error : new Error(String(error));
    }
    const { rows } = await running;
    if (!rows[0]?.fenced) {
      throw leaseLost(fence);
    }
    if (!rows[0].written) throw new StoreConflictError("an invocation of the batch is not open");
    if (built instanceof Error) throw built;
    if (rows[0].missing.length > 0) await addToolActions(client, current, rows[0].missing);
    if (slice) {
      await events.add(client, slice);
      current = slice;
    }
    next = built;
  }
  if (events.total === 0) return;
  await client.query({
    name: "raes_set_last_sequence",
    text: SET_LAST_SEQUENCE,
    values: [events.chains.first + events.total - 1],
  });
  await copyEvents(client, events);
  const heads = events.chains.linker.heads();
  await client.query({ name: "raes_save_chains", text: SAVE_CHAINS, values: [JSON.stringify(heads)] });
}

/** The transaction's sequences, from `next` on, and its events' chains, linked as the slices run. */
interface Chains {
  /** The transaction's first sequence. */
  readonly first: number;
  next: number;
  /** The stored chain heads of the participants read so far, by address. */
  readonly heads: Map<string, ChainHead>;
  /** The participants whose heads were read (a participant without a chain has no head). */
  readonly read: Set<string>;
  readonly linker: ChainLinker;
}

/** Locks history_head to the commit: the sequences after its last_sequence are this transaction's. */
async function lockSequences(client: Pick<Queryable, "query">): Promise<Chains> {
  const locked = await client.query<{ last_sequence: number | string }>({
    name: "raes_lock_sequences",
    text: LOCK_SEQUENCES,
    values: [],
  });
  const heads = new Map<string, ChainHead>();
  const first = Number(locked.rows[0]?.last_sequence) + 1;
  return {
    first,
    next: first,
    heads,
    read: new Set(),
    linker: new ChainLinker((participant) => heads.get(participant), new Map()),
  };
}

/** What a slice's statement answers: a batch's result, and the ids of the tool actions it did not find. */
interface SliceResult extends BatchResult {
  readonly missing: readonly string[];
}

/** Inserts, whole, the tool actions of `commits` a slice's statement did not find stored. */
async function addToolActions(
  client: Pick<Queryable, "query">,
  commits: readonly InvocationCommit[],
  missing: readonly string[],
): Promise<void> {
  const ids = new Set(missing);
  const added = commits.flatMap((c) => c.toolActions.filter((a) => ids.has(a.id)));
  await client.query({
    name: "raes_add_tool_actions",
    text: ADD_TOOL_ACTIONS,
    values: [JSON.stringify(added.map(toolActionRow))],
  });
}

/** The statement and parameters of one slice: its closes, settlements and schedulers. */
function sliceQuery(commits: readonly InvocationCommit[], fence: Fence | undefined) {
  return {
    ...(fence ? SLICE_STATEMENT.fenced : SLICE_STATEMENT.unfenced),
    values: [
      ...fenceValues(fence),
      JSON.stringify(commits.map((c) => invocationCloseRow(c.invocation))),
      commits.length,
      JSON.stringify(commits.flatMap((c) => c.toolActions.map(toolActionSettleRow))),
      JSON.stringify(lastSchedulers(commits).map((s) => named(SCHEDULER_COLUMNS, schedulerValues(s)))),
    ],
  };
}

/** Milliseconds of linking between event-loop turns: an answer from the server waits no longer. */
const TURN_MS = 2;
/** Events linked between two looks at the clock. */
const LINKED_PER_LOOK = 16;
/** Milliseconds a slice of slowly built closes may take, once the statement before has answered. */
const SLOW_SLICE_MS = 1_000;
/**
 * COPY text (about this many bytes) linked ahead while the slices run: beyond it, the rest waits for the COPY,
 * which sends as it links and lets the socket hold only a bound more (copy.ts), so a batch of any size
 * holds about this much at once.
 */
const LINKED_AHEAD = 32 << 20;

/** One turn of the event loop: the driver takes what the server sent meanwhile. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The transaction's events as COPY rows, linked a few at a time in commit order. */
class EventRows {
  readonly rows = new CopyRows();
  readonly chains: Chains;
  readonly #commits: InvocationCommit[] = [];
  #total = 0;
  #commit = 0;
  #event = 0;

  constructor(chains: Chains) {
    this.chains = chains;
  }

  /** How many events the slices taken so far append. */
  get total(): number {
    return this.#total;
  }

  /** Queues a slice's events for linking, once the chain heads of their participants are read. */
  async add(client: Pick<Queryable, "query">, slice: readonly InvocationCommit[]): Promise<void> {
    const unread = new Set<string>();
    for (const { events } of slice) {
      this.#total += events.length;
      for (const event of events)
        if (!this.chains.read.has(event.participant_address)) unread.add(event.participant_address);
    }
    if (unread.size > 0) {
      // history_head is locked: no head moves between this read and the commit.
      const { rows } = await client.query<ChainRow>({
        name: "raes_chain_heads",
        text: CHAIN_HEADS,
        values: [[...unread]],
      });
      for (const row of rows) this.chains.heads.set(row.participant_address, chainHead(row));
      for (const participant of unread) this.chains.read.add(participant);
    }
    this.#commits.push(...slice);
  }

  /** Links events for about `TURN_MS`, each numbered from `chains.next`; false once every one queued is. */
  link(): boolean {
    const until = performance.now() + TURN_MS;
    for (let n = 1; this.rows.rows < this.#total; ) {
      if (n % LINKED_PER_LOOK === 0 && performance.now() >= until) break;
      const commit = this.#commits[this.#commit] as InvocationCommit;
      const draft = commit.events[this.#event];
      if (draft === undefined) {
        this.#commit += 1;
        this.#event = 0;
        continue;
      }
      const sequence = this.chains.next;
      const digest = this.chains.linker.linkAt(draft, sequence, commit.anchor);
      // The body is JSON text (only backslashes to escape); a digest is `sha256:` and hex (nothing).
      this.rows.add(
        `${sequence}\t${copyCell(draft.participant_address)}\t${copyCell(draft.episode_id)}\t${copyCell(
          draft.action_instance_id,
        )}\t${copyJsonCell(JSON.stringify(draft))}\t${digest}`,
      );
      this.chains.next += 1;
      this.#event += 1;
      n += 1;
    }
    return this.rows.rows < this.#total;
  }
}

/**
 * Appends the transaction's events by one COPY: those linked already go first, and the rest are
 * linked while the server takes them in. Throws unless the server copied every one; a failure while
 * linking abandons the copy first, and linking stops once the COPY has failed (the server refused it,
 * the connection or the driver's timeout ended it).
 */
async function copyEvents(client: Pick<PoolClient, "query">, events: EventRows): Promise<void> {
  const copy = new CopyIn(client, EVENTS_COPY, events.rows);
  try {
    while (!copy.settled && events.link()) {
      copy.send();
      // The socket drains the chunks sent while the rest are linked, up to a bound it must drain to.
      await copy.sent();
      await turn();
    }
  } catch (error) {
    await copy.fail(error instanceof Error ? error.message : String(error));
    throw error;
  }
  const copied = await copy.end();
  if (copied !== events.total)
    throw new StoreConflictError(`history events copied: ${copied} of ${events.total}`);
}

/** Whether the fence held and whether every invocation of the batch was open and is now closed. */
export interface BatchResult {
  readonly fenced: boolean;
  readonly written: boolean;
}

/**
 * Writes a slice of invocation closes in one statement, inside the caller's transaction: the
 * invocations, every settled tool action, the events in order, and each scheduler's last state.
 * A slice that closes one invocation twice is refused before anything is sent.
 */
export async function commitBatch(
  client: Pick<Queryable, "query">,
  commits: readonly InvocationCommit[],
  fence: Fence | undefined,
): Promise<BatchResult> {
  const { rows } = await client.query<BatchResult>(batchQuery(commits, fence));
  return { fenced: rows[0]?.fenced === true, written: rows[0]?.written === true };
}

/** The statement and parameters of one slice; refuses a slice that closes one invocation twice. */
function batchQuery(commits: readonly InvocationCommit[], fence: Fence | undefined) {
  const ids = new Set(commits.map((c) => c.invocation.id));
  if (ids.size !== commits.length) throw new StoreConflictError("a batch closes one invocation twice");
  const events = commits.flatMap((c) => c.events);
  return {
    ...(fence ? STATEMENT.fenced : STATEMENT.unfenced),
    values: [
      ...fenceValues(fence),
      JSON.stringify(commits.map((c) => invocationCloseRow(c.invocation))),
      commits.length,
      JSON.stringify(commits.flatMap((c) => c.toolActions.map(toolActionRow))),
      events.length,
      JSON.stringify(events),
      JSON.stringify(lastSchedulers(commits).map((s) => named(SCHEDULER_COLUMNS, schedulerValues(s)))),
      // Each event's key columns beside the bodies, so the server parses a body once, not per key.
      JSON.stringify(events.map((e) => e.participant_address)),
      JSON.stringify(events.map((e) => e.episode_id)),
      JSON.stringify(events.map((e) => e.action_instance_id)),
      ...chainValues(commits).map((values) => JSON.stringify(values)),
    ],
  };
}

/**
 * Each event's RFC 8785 text before and after its sequence, its commit's anchor, and its participant's
 * genesis (used only when the participant has no chain yet), as five arrays beside the bodies.
 */
function chainValues(commits: readonly InvocationCommit[]): (string | null)[][] {
  const before: string[] = [];
  const after: string[] = [];
  const genesis: string[] = [];
  const scenario: (string | null)[] = [];
  const manifest: (string | null)[] = [];
  const geneses = new Map<string, string>();
  // The objects a slice's events share (a triple's contexts), each written once.
  const texts: CanonicalCache = new Map();
  for (const commit of commits) {
    const anchor = commit.anchor ?? UNANCHORED;
    for (const event of commit.events) {
      const [b, a] = canonicalAroundSequence(event, texts);
      before.push(b);
      after.push(a);
      const key = JSON.stringify([event.participant_address, anchor.scenario_digest, anchor.manifest_digest]);
      let first = geneses.get(key);
      if (first === undefined) {
        first = chainGenesis(event.participant_address, anchor);
        geneses.set(key, first);
      }
      genesis.push(first);
      scenario.push(anchor.scenario_digest);
      manifest.push(anchor.manifest_digest);
    }
  }
  return [before, after, scenario, manifest, genesis];
}

/** Each scheduler's state after the last commit that carries it: one upsert may touch a row only once. */
function lastSchedulers(commits: readonly InvocationCommit[]): SchedulerRecord[] {
  const last = new Map<string, SchedulerRecord>();
  for (const { scheduler } of commits) {
    last.set(JSON.stringify([scheduler.participantAddress, scheduler.policyAddress]), scheduler);
  }
  return [...last.values()];
}

function named(columns: readonly Column[], values: readonly unknown[]): Record<string, unknown> {
  return Object.fromEntries(columns.map(([name], k) => [name, values[k]]));
}
