import {
  type Operation,
  operationFromInvocation,
  operationFromToolAction,
  unstorableDecisionText,
} from "../records/index.js";
import { StoreDecisionInvalidError } from "./errors.js";
import {
  type ControlPlaneStore,
  type Lease,
  type ProcessMember,
  STORE_READS,
  STORE_WRITES,
  type StoreReader,
} from "./types.js";

/** A store part's answer: at once (SQLite, memory) or later (PostgreSQL). */
export type Answer<T> = T | Promise<T>;

/** A store's calls as a part answers them: the same names and arguments, answered at once or later. */
type Parted<Names extends keyof ControlPlaneStore> = {
  [K in Names]: ControlPlaneStore[K] extends (...args: infer A) => Promise<infer R>
    ? (...args: A) => Answer<R>
    : never;
};

/** The reads of a store, under the store's own names. */
export type StoreReads = Parted<(typeof STORE_READS)[number]>;

/** The writes of a store, under the store's own names, each one atomic. */
export type StoreWrites = Parted<(typeof STORE_WRITES)[number]>;

/** The scheduler ownership leases of a store. */
export interface StoreLeases {
  get(participantAddress: string): Answer<Lease | undefined>;
  acquire(
    participantAddress: string,
    ownerId: string,
    ttlMs: number,
    replacing: string | undefined,
  ): Answer<Lease | undefined>;
  release(lease: Lease): Answer<void>;
  renew(leases: readonly Lease[], ttlMs: number): Answer<Lease[]>;
  list(): Answer<Lease[]>;
  heartbeat(ownerId: string, ttlMs: number): Answer<ProcessMember[]>;
  leave(ownerId: string): Answer<void>;
}

/** What a store is made of, and how it reports a failure of its driver. */
export interface StoreParts {
  readonly reads: StoreReads;
  readonly writes: StoreWrites;
  readonly leases: StoreLeases;
  readonly error?: (error: unknown) => unknown;
  /**
   * Runs `work` with reads of one moment of the store (one read transaction); errors of `work` pass
   * through as they are. Without it, `readSnapshot` reads live (the memory store).
   */
  readonly snapshot?: <T>(work: (reads: StoreReads) => Promise<T>) => Promise<T>;
}

/**
 * A `ControlPlaneStore` answered by its parts. A part that answers at once is called synchronously,
 * so a memory call does all its work before the call returns. So does a SQLite call, except a write
 * issued after another commit in the same event-loop turn: it joins the turn's group commit and is
 * done when its promise settles; any later SQLite read or lease call commits it first, so every call
 * still sees every write issued before it.
 */
export abstract class DelegatingStore implements ControlPlaneStore {
  readonly url: string;
  readonly #reads: StoreReads;
  readonly #writes: StoreWrites;
  readonly #leases: StoreLeases;
  readonly #error: (error: unknown) => unknown;
  readonly #snapshot: StoreParts["snapshot"];

  protected constructor(url: string, parts: StoreParts) {
    this.url = url;
    this.#reads = parts.reads;
    this.#writes = parts.writes;
    this.#leases = parts.leases;
    this.#error = parts.error ?? ((error) => error);
    this.#snapshot = parts.snapshot;
  }

  /** See `ControlPlaneStore.readSnapshot`. */
  async readSnapshot<T>(work: (reads: StoreReader) => Promise<T>): Promise<T> {
    const snapshot = this.#snapshot;
    if (snapshot === undefined) return work(this);
    let failed: { readonly error: unknown } | undefined;
    try {
      return await snapshot(async (reads) => {
        try {
          return await work(readerOf(this.url, reads, (w) => this.#guard(w)));
        } catch (error) {
          failed = { error };
          throw error;
        }
      });
    } catch (error) {
      // The work's own failure as it is; the transaction's (begin, commit) as the store's error.
      if (failed !== undefined && failed.error === error) throw error;
      throw this.#error(error);
    }
  }

  abstract close(): Promise<void>;

  // The reads and writes keep the store's names in their parts, so each is forwarded as it is (the
  // static block below puts them on the prototype): declared here for the type checker only.
  declare getOperations: ControlPlaneStore["getOperations"];
  declare listOperations: ControlPlaneStore["listOperations"];
  declare findOperationIds: ControlPlaneStore["findOperationIds"];
  declare listEvents: ControlPlaneStore["listEvents"];
  declare readChainPage: ControlPlaneStore["readChainPage"];
  declare listChainHeads: ControlPlaneStore["listChainHeads"];
  declare historyChained: ControlPlaneStore["historyChained"];
  declare readDecisionPage: ControlPlaneStore["readDecisionPage"];
  declare getDecisionHead: ControlPlaneStore["getDecisionHead"];
  declare getClock: ControlPlaneStore["getClock"];
  declare getScheduler: ControlPlaneStore["getScheduler"];
  declare listSchedulers: ControlPlaneStore["listSchedulers"];
  declare getInvocation: ControlPlaneStore["getInvocation"];
  declare listOpenInvocations: ControlPlaneStore["listOpenInvocations"];
  declare getToolAction: ControlPlaneStore["getToolAction"];
  declare listToolActions: ControlPlaneStore["listToolActions"];
  declare listOpenToolActions: ControlPlaneStore["listOpenToolActions"];
  declare getParticipantService: ControlPlaneStore["getParticipantService"];
  declare listParticipantServices: ControlPlaneStore["listParticipantServices"];
  declare listResourcePools: ControlPlaneStore["listResourcePools"];
  declare listPacingDeviations: ControlPlaneStore["listPacingDeviations"];
  declare listBudgetEvents: ControlPlaneStore["listBudgetEvents"];
  declare countBudgetEvents: ControlPlaneStore["countBudgetEvents"];
  declare saveClock: ControlPlaneStore["saveClock"];
  declare updateClock: ControlPlaneStore["updateClock"];
  declare saveScheduler: ControlPlaneStore["saveScheduler"];
  declare openInvocation: ControlPlaneStore["openInvocation"];
  declare insertToolAction: ControlPlaneStore["insertToolAction"];
  declare updateToolAction: ControlPlaneStore["updateToolAction"];
  declare commitInvocation: ControlPlaneStore["commitInvocation"];
  declare commitInvocations: ControlPlaneStore["commitInvocations"];
  declare recordResolution: ControlPlaneStore["recordResolution"];
  declare recordApproval: ControlPlaneStore["recordApproval"];
  declare recordDecision: ControlPlaneStore["recordDecision"];
  declare saveParticipantService: ControlPlaneStore["saveParticipantService"];
  declare recordPacingDeviation: ControlPlaneStore["recordPacingDeviation"];

  static {
    const forward = (names: readonly string[], part: (store: DelegatingStore) => object) => {
      for (const name of names) {
        Object.defineProperty(DelegatingStore.prototype, name, {
          value(this: DelegatingStore, ...args: unknown[]): Promise<unknown> {
            const refused = unstorableDecision(name, args);
            if (refused !== undefined) return Promise.reject(refused);
            const target = part(this);
            const method = Reflect.get(target, name) as (...a: unknown[]) => Answer<unknown>;
            return this.#guard(() => method.apply(target, args));
          },
          writable: true,
          configurable: true,
        });
      }
    };
    forward(STORE_READS, (store) => store.#reads);
    forward(STORE_WRITES, (store) => store.#writes);
  }

  getOperation(id: string): Promise<Operation | undefined> {
    return this.#guard(() => operationOf(this.#reads, id));
  }

  getLease(participantAddress: string): Promise<Lease | undefined> {
    return this.#guard(() => this.#leases.get(participantAddress));
  }

  acquireLease(
    participantAddress: string,
    ownerId: string,
    ttlMs: number,
    options: { readonly replacing?: string } = {},
  ): Promise<Lease | undefined> {
    return this.#guard(() => this.#leases.acquire(participantAddress, ownerId, ttlMs, options.replacing));
  }

  releaseLease(lease: Lease): Promise<void> {
    return this.#guard(() => this.#leases.release(lease));
  }

  renewLeases(leases: readonly Lease[], ttlMs: number): Promise<Lease[]> {
    return this.#guard(() => (leases.length === 0 ? [] : this.#leases.renew(leases, ttlMs)));
  }

  listLeases(): Promise<Lease[]> {
    return this.#guard(() => this.#leases.list());
  }

  heartbeatProcess(ownerId: string, ttlMs: number): Promise<ProcessMember[]> {
    return this.#guard(() => this.#leases.heartbeat(ownerId, ttlMs));
  }

  leaveProcesses(ownerId: string): Promise<void> {
    return this.#guard(() => this.#leases.leave(ownerId));
  }

  /** Runs a part's work; whether it throws or rejects, the caller gets a rejection with the store's error. */
  #guard<T>(work: () => Answer<T>): Promise<T> {
    try {
      const answer = work();
      if (!(answer instanceof Promise)) return Promise.resolve(answer);
      return answer.catch((error: unknown) => {
        throw this.#error(error);
      });
    } catch (error) {
      return Promise.reject(this.#error(error));
    }
  }
}

/** The operation of `id` as `reads` answer it: the invocation, else the tool action. */
function operationOf(reads: StoreReads, id: string): Answer<Operation | undefined> {
  return andThen(reads.getInvocation(id), (invocation) =>
    invocation
      ? operationFromInvocation(invocation)
      : andThen(reads.getToolAction(id), (action) => action && operationFromToolAction(action)),
  );
}

/** A store's reads (a snapshot's) under the store's names, each answer guarded as the store's are. */
function readerOf(
  url: string,
  reads: StoreReads,
  guard: <T>(work: () => Answer<T>) => Promise<T>,
): StoreReader {
  const reader: Record<string, unknown> = {
    url,
    getOperation: (id: string) => guard(() => operationOf(reads, id)),
  };
  for (const name of STORE_READS) {
    const method = Reflect.get(reads, name) as (...a: unknown[]) => Answer<unknown>;
    reader[name] = (...args: unknown[]) => guard(() => method.apply(reads, args));
  }
  return reader as unknown as StoreReader;
}

/** `next` of an answer: at once for an answer given at once, so synchronous stores stay synchronous. */
export function andThen<T, U>(value: Answer<T>, next: (value: T) => Answer<U>): Answer<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * The arguments of each write that appends an operator decision which hold its text: the decision
 * and the resolution or approval written with it.
 */
const DECISION_ARGUMENTS: ReadonlyMap<string, readonly number[]> = new Map([
  ["recordResolution", [1, 2]],
  ["recordApproval", [1, 3]],
  ["recordDecision", [0]],
  ["saveParticipantService", [1]],
]);

/**
 * The refusal of a write whose decision holds a NUL or a lone surrogate, checked before any store
 * writes: SQLite would keep other text than the chain sealed (its digest then fails `raes verify` on
 * an untouched store) and PostgreSQL refuses NUL; so every store refuses alike.
 */
function unstorableDecision(name: string, args: readonly unknown[]): StoreDecisionInvalidError | undefined {
  for (const at of DECISION_ARGUMENTS.get(name) ?? []) {
    const value = args[at];
    if (typeof value !== "object" || value === null) continue;
    const member = unstorableDecisionText(value);
    if (member !== undefined)
      return new StoreDecisionInvalidError(
        `${name}: the decision's ${member} holds a NUL character or a lone surrogate, which no store keeps as sealed`,
      );
  }
  return undefined;
}
