import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { ChainAnchor, HistoryEventDraft } from "../../../records/index.js";
import type { EventRows, EventRowsJob } from "./prepare.js";

export { type EventRows, type EventRowsJob, prepareEventRows } from "./prepare.js";

/**
 * From this many closes in one commit (a recovery's), their event rows are prepared on another
 * thread while the commit writes: below it, starting the thread costs more than it saves.
 */
export const PREPARE_APART_FROM = 2048;
/** Closes per job: small enough that the writer starts early, large enough to share each message's cost. */
const CLOSES_PER_JOB = 64;
/** How long the writer waits, in all, for answers before preparing the rest itself (the thread is slow or gone). */
const STALL_MS = 5_000;

/** Where the worker's module is and how long an answer may take; tests point these elsewhere. */
export interface PipelineOptions {
  readonly entry?: string;
  readonly stallMs?: number;
}

/** One event's prepared row. */
export interface PreparedRow {
  readonly body: string;
  readonly digest: string;
}

/** What a pipeline predicts before the transaction, and confirms inside it. */
export interface Prediction {
  /** The largest stored sequence, as read before the transaction. */
  readonly lastSequence: number;
  /** The digest a participant's next event chains from, as read before the transaction. */
  readonly previous: (participant: string, anchor: ChainAnchor) => string;
}

/**
 * Prepares a large commit's event rows (packed bodies and chain digests) on a worker thread
 * while the committing thread writes (docs/guide/stores.md, "SQLite"). Closes are sent as they
 * are taken, before the transaction, with the sequence and chain heads read then; inside the
 * transaction `confirm` checks that nothing moved them, and `next` hands each event's row in
 * commit order, blocking only until the thread has answered that far. Whatever the thread cannot
 * answer (its start failed, it stalled, a close holds other than plain data, another writer moved
 * a head) the writer prepares itself with the same functions: the rows are the same either way.
 */
export class EventRowPipeline {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal: Int32Array;
  readonly #prediction: Prediction;
  /** Each participant's predicted previous digest and the anchor it was read under, as sent. */
  readonly #sent = new Map<string, { readonly digest: string; readonly anchor: ChainAnchor }>();
  #job: (readonly HistoryEventDraft[])[] = [];
  /** The events of the closes in `#job`. */
  #jobEvents = 0;
  #jobPrevious: [string, string][] = [];
  #nextSequence: number;
  /** The events of each job sent, in order. */
  readonly #jobSizes: number[] = [];
  /** The job whose events `next` hands now, its rows (undefined: the writer prepares them), and the place in it. */
  #current = -1;
  #rows: EventRows | undefined;
  #at = 0;
  /** The last job the thread answered (-1: none yet, it may still be starting). */
  #answered = -1;
  /** Answers read from the port: the thread raises the shared counter past this with each one it posts. */
  #seen = 0;
  /** How long the writer has waited for answers, in all: bounded by the stall bound. */
  #waited = 0;
  /** The events of each close sent, in order. */
  readonly #closeSizes: number[] = [];
  /** No close is sent after one the thread could not be given. */
  #stopped = false;
  /** The thread's answers are no longer used: the writer prepares the rest. */
  #failed = false;

  readonly #stallMs: number;

  private constructor(prediction: Prediction, options: PipelineOptions) {
    this.#stallMs = options.stallMs ?? STALL_MS;
    this.#prediction = prediction;
    this.#nextSequence = prediction.lastSequence + 1;
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    // [answers posted, jobs the writer took from the first]
    this.#signal = new Int32Array(new SharedArrayBuffer(8));
    this.#worker = new Worker(BOOT, {
      eval: true,
      workerData: { port: port2, signal: this.#signal, entry: options.entry ?? ENTRY, loader: LOADER },
      transferList: [port2],
    });
    // It never keeps the process alive, and its failure only sends the writer back to its own work.
    this.#worker.unref();
    this.#worker.on("error", () => {
      this.#failed = true;
    });
  }

  /** A pipeline, or undefined where no worker thread can be started. */
  static start(prediction: Prediction, options: PipelineOptions = {}): EventRowPipeline | undefined {
    try {
      return new EventRowPipeline(prediction, options);
    } catch {
      return undefined;
    }
  }

  /** Sends one close's events (after the ones before it); a close holding other than plain data stops the sending. */
  add(events: readonly HistoryEventDraft[], anchor: ChainAnchor): void {
    if (this.#stopped) return;
    if (!plainEvents(events)) {
      this.#stopped = true;
      this.flush();
      return;
    }
    for (const draft of events) {
      const participant = draft.participant_address;
      if (!this.#sent.has(participant)) {
        const digest = this.#prediction.previous(participant, anchor);
        this.#sent.set(participant, { digest, anchor });
        this.#jobPrevious.push([participant, digest]);
      }
    }
    this.#job.push(events);
    this.#jobEvents += events.length;
    this.#closeSizes.push(events.length);
    if (this.#job.length >= CLOSES_PER_JOB) this.flush();
  }

  /** Sends the closes not sent yet. */
  flush(): void {
    if (this.#job.length === 0) return;
    const events = this.#jobEvents;
    const job: EventRowsJob = {
      index: this.#jobSizes.length,
      closes: this.#job,
      firstSequence: this.#nextSequence,
      previous: this.#jobPrevious,
    };
    this.#nextSequence += events;
    this.#job = [];
    this.#jobEvents = 0;
    this.#jobPrevious = [];
    try {
      this.#port.postMessage(job);
      this.#jobSizes.push(events);
    } catch {
      // Not cloneable after all: this close and the ones after it are prepared by the writer.
      this.#stopped = true;
    }
  }

  /**
   * Inside the transaction: whether the predictions still hold (the same last sequence, every sent
   * participant's previous digest the same). When they do not, no answer is used.
   */
  confirm(lastSequence: number, previous: (participant: string, anchor: ChainAnchor) => string): boolean {
    if (lastSequence !== this.#prediction.lastSequence) this.#failed = true;
    for (const [participant, { digest, anchor }] of this.#sent) {
      if (this.#failed) break;
      if (previous(participant, anchor) !== digest) this.#failed = true;
    }
    return !this.#failed;
  }

  /**
   * The next event's row, in commit order, or undefined when the writer prepares it: every event
   * of a job the thread had not reached when the writer came to it, and every one after the jobs
   * sent, or after the thread failed.
   */
  next(): PreparedRow | undefined {
    if (this.#failed) return undefined;
    while (this.#current < 0 || this.#at === (this.#jobSizes[this.#current] ?? 0)) {
      this.#current += 1;
      this.#at = 0;
      if (this.#current >= this.#jobSizes.length) {
        this.#rows = undefined;
        return undefined;
      }
      this.#rows = this.#failed ? undefined : this.#rowsOf(this.#current);
    }
    const at = this.#at;
    this.#at += 1;
    const rows = this.#rows;
    if (rows === undefined) return undefined;
    return { body: rows.bodies[at] as string, digest: rows.digests[at] as string };
  }

  /**
   * Whether close `index` still holds as many events as when it was sent (or was never sent). When
   * not, its rows would be handed to other events: no answer is used from here on.
   */
  matches(index: number, events: number): boolean {
    const sent = this.#closeSizes[index];
    if (sent === undefined || sent === events) return true;
    this.#failed = true;
    return false;
  }

  /** How many answers the thread has posted so far (the failure of its start counts as one). */
  get answers(): number {
    return Atomics.load(this.#signal, 0);
  }

  /** Stops the thread; the pipeline answers nothing more. */
  close(): void {
    this.#failed = true;
    this.#port.close();
    this.#worker.terminate().catch(() => undefined);
  }

  /**
   * Job `index`'s answer. Waits for it only while the thread works on that very job (it answered
   * the one before); a job the thread has not reached (it may still be starting) is taken by the
   * writer at once, and the thread told to link it only.
   */
  #rowsOf(index: number): EventRows | undefined {
    for (;;) {
      for (
        let got = receiveMessageOnPort(this.#port);
        got !== undefined;
        got = receiveMessageOnPort(this.#port)
      ) {
        this.#seen += 1;
        const answer = got.message as EventRows | { failed: string };
        if ("failed" in answer) {
          this.#failed = true;
          return undefined;
        }
        this.#answered = answer.index;
        // An earlier job's answer came after the writer took that job: not used.
        if (answer.index === index) return answer;
      }
      if (this.#failed || this.#answered !== index - 1 || index === 0 || this.#waited >= this.#stallMs) break;
      // Blocks this thread until the worker posts another answer (or a slice passes).
      const start = performance.now();
      Atomics.wait(this.#signal, 0, this.#seen, 100);
      this.#waited += performance.now() - start;
    }
    if (this.#waited >= this.#stallMs) this.#failed = true;
    Atomics.store(this.#signal, 1, index + 1);
    return undefined;
  }
}

/** Deeper than this, no history event is sealed (docs/evidence-format.md): such closes stay with the writer. */
const DEEPEST = 1024;

/**
 * Whether a close's events are plain data, nested no deeper than DEEPEST: then the worker gives
 * what the writer would, and a value too deep for the writer's stack is never the worker's alone.
 */
function plainEvents(events: readonly HistoryEventDraft[]): boolean {
  const seen = new Set<object>();
  try {
    return events.every((draft) => plainData(draft, seen, 0));
  } catch {
    // Deeper than this thread's stack (or a getter threw): the writer meets the same as it always did.
    return false;
  }
}

/**
 * Whether a value is plain data a structured clone copies exactly: plain objects and arrays of
 * strings, finite numbers, booleans and null (undefined members are left out on both sides), no
 * `toJSON`. Anything else (a class instance, a Date) is prepared by the writer, as it always was.
 */
function plainData(value: unknown, seen: Set<object>, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "undefined":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null || seen.has(value)) return true;
      if (depth >= DEEPEST) return false;
      seen.add(value);
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return false;
        for (let i = 0; i < value.length; i += 1) if (!plainData(value[i], seen, depth + 1)) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      const record = value as Record<string, unknown>;
      if (typeof record.toJSON === "function") return false;
      for (const key of Object.keys(record)) if (!plainData(record[key], seen, depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

/** The worker's module: the same kind of file as this one (TypeScript when run from source). */
const SOURCE = import.meta.url.endsWith(".ts");
const ENTRY = new URL(`./worker.${SOURCE ? "ts" : "js"}`, import.meta.url).href;
/** From source, the worker needs the TypeScript loader the tests and benches run under (tsx). */
const LOADER = SOURCE ? typescriptLoader() : undefined;

function typescriptLoader(): string | undefined {
  try {
    return import.meta.resolve("tsx/esm/api");
  } catch {
    // No loader to give it: the worker fails to start and the writer prepares every row itself.
    return undefined;
  }
}

/**
 * The worker's first code: loads its module (after the loader, from source); a failure is posted
 * as an answer, so the writer waiting for one goes on by itself at once.
 */
const BOOT = `
const { workerData } = require("node:worker_threads");
(async () => {
  if (workerData.loader) await (await import(workerData.loader)).register();
  await import(workerData.entry);
})().catch((error) => {
  workerData.port.postMessage({ failed: String(error) });
  Atomics.add(workerData.signal, 0, 1);
  Atomics.notify(workerData.signal, 0);
});
`;
