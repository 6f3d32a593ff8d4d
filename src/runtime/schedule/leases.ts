import { isDeadLocalOwner, takeParticipantLease } from "../../operations/index.js";
import {
  type ControlPlaneStore,
  type Fence,
  type Lease,
  LeaseLostError,
  type ProcessMember,
} from "../../store/index.js";
import { planShare } from "./share.js";

/** The keep-alive runs, and finds a heartbeat or lease stale, every this fraction of a lease lifetime. */
const KEEP_ALIVE_PARTS = 4;
/**
 * The keep-alive's shortest and longest period: a lifetime of a few milliseconds gains nothing from
 * rounds every millisecond (its leases lapse between any two writes), and Node takes no timer longer
 * than 2³¹−1 ms.
 */
const KEEP_ALIVE_MS = { min: 25, max: 2 ** 31 - 1 } as const;

/** This process's part of the participants, as `raes run` reports it. */
export interface ParticipantShare {
  /** Participants whose lease this process holds. */
  readonly owned: number;
  /** Participants of the scenario this process can schedule. */
  readonly participants: number;
  /** Live processes sharing them, this one included. */
  readonly processes: number;
  /** How many it should own once the division is stable. */
  readonly target: number;
}

/** Recovers and loads participants taken: which, which of them were handed over, and how many steps a hand-over keeps. */
export type LoadTaken = (
  taken: ReadonlySet<string>,
  handedOver: ReadonlySet<string>,
  keepSteps: number,
) => Promise<void>;

/** Whether a share differs from the last one told (none told yet counts as a change). */
export function shareChanged(last: ParticipantShare | undefined, next: ParticipantShare): boolean {
  return (
    !last || last.owned !== next.owned || last.processes !== next.processes || last.target !== next.target
  );
}

/** A function that tells the observer the source's share whenever it differs from the last one told. */
export function shareTeller(
  source: { share(): ParticipantShare },
  observer: { shareChanged?(share: ParticipantShare): void } | undefined,
): () => void {
  let last: ParticipantShare | undefined;
  return () => {
    const share = source.share();
    if (!shareChanged(last, share)) return;
    last = share;
    observer?.shareChanged?.(share);
  };
}

/** Options of `ParticipantLeases`. */
export interface ParticipantLeasesOptions {
  readonly store: ControlPlaneStore;
  readonly ownerId: string;
  readonly leaseTtlMs: number;
  /** Wall clock in epoch milliseconds, to renew leases only when half their lifetime has passed. */
  readonly nowMs: () => number;
  /** Every participant this process can schedule, in plan order. */
  readonly participants: readonly string[];
  /** Where the keep-alive tells an outage of the store, once, and its end. */
  readonly log?: (line: string) => void;
}

/**
 * The leases this process holds, and its fair share of the participants among the live processes
 * sharing the store (a heartbeat per step). All changes happen at step boundaries, when no
 * invocation of this process is open, so a hand-over never splits an invocation.
 */
export class ParticipantLeases {
  readonly #o: ParticipantLeasesOptions;
  readonly #leases = new Map<string, Lease>();
  readonly #renewedAt = new Map<string, number>();
  /**
   * Participants taken whose load has not succeeded yet, and whether each was handed over: a
   * rebalance or load that fails part-way must not leave one leased (and renewed) but never loaded.
   */
  readonly #unloaded = new Map<string, boolean>();
  #share: ParticipantShare;
  /** When this process last beat its heartbeat (`nowMs`), by a step or by the keep-alive. */
  #beatAt: number | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  /** The keep-alive round in flight, if any: `releaseAll` waits for it, so nothing beats after leaving. */
  #keepingAlive: Promise<void> | undefined;
  #released = false;
  /** The last keep-alive round failed: its recovery is told once. */
  #failing = false;
  /** A heartbeat issued ahead of the next rebalance (`beatAhead`), which takes its answer. */
  #ahead: { readonly at: number; readonly members: Promise<ProcessMember[]> } | undefined;
  /** The last heartbeat sent ahead, taken or dropped: `releaseAll` waits for it to land first. */
  #landing: Promise<unknown> = Promise.resolve();

  constructor(options: ParticipantLeasesOptions) {
    this.#o = options;
    const participants = options.participants.length;
    this.#share = { owned: 0, participants, processes: 1, target: participants };
  }

  /** Participants whose lease this process holds. */
  owned(): ReadonlySet<string> {
    return new Set(this.#leases.keys());
  }

  has(participant: string): boolean {
    return this.#leases.has(participant);
  }

  /** Held, and loaded since it was taken: its records in memory are the store's. */
  loaded(participant: string): boolean {
    return this.#leases.has(participant) && !this.#unloaded.has(participant);
  }

  /** The fencing token writes for this participant must present. */
  fenceFor(participantAddress: string): Fence | undefined {
    const lease = this.#leases.get(participantAddress);
    return lease ? { participantAddress, token: lease.token } : undefined;
  }

  /** The share as of the last rebalance. */
  share(): ParticipantShare {
    return this.#share;
  }

  /**
   * Beats, renews held leases, then moves towards this process's share: releases its surplus or
   * takes free participants (and ones whose owner is gone once their lease expired, at once when
   * that owner is provably dead on this host). What it takes waits in `#unloaded` for `loadPending`:
   * its interrupted invocations need recovery and its records a reload.
   */
  async rebalance(): Promise<void> {
    const { store, ownerId, leaseTtlMs } = this.#o;
    const ahead = this.#ahead;
    this.#ahead = undefined;
    const beatAt = ahead?.at ?? this.#o.nowMs();
    const members = (await (ahead?.members ?? store.heartbeatProcess(ownerId, leaseTtlMs))).filter(
      (m) => m.ownerId === ownerId || !isDeadLocalOwner(m.ownerId),
    );
    this.#beatAt = beatAt;
    for (const participant of [...this.#leases.keys()]) {
      const renewed = this.#renewedAt.get(participant);
      // Every write is fenced, so a lease fresher than half its lifetime needs no write to keep.
      if (renewed !== undefined && this.#o.nowMs() - renewed < leaseTtlMs / 2) continue;
      const before = this.#leases.get(participant);
      const lease = await this.#take(participant);
      // Taken again after it expired and another owner held it: not handed over.
      if (lease && before && lease.token !== before.token) this.#unloaded.set(participant, false);
    }
    // Alone and holding every participant, the plan is to keep them all, whoever held what before.
    const alone = members.every((m) => m.ownerId === ownerId);
    const leases = alone && this.#leases.size === this.#o.participants.length ? [] : await store.listLeases();
    const plan = planShare({
      ownerId,
      participants: this.#o.participants,
      members,
      leases,
      owned: this.owned(),
    });
    for (const participant of plan.release) {
      const lease = this.#leases.get(participant);
      this.#drop(participant);
      if (lease) await store.releaseLease(lease);
    }
    const held = new Set(leases.map((l) => l.participantAddress));
    for (const participant of plan.acquire) {
      if (this.#leases.size >= plan.target) break;
      if (!(await this.#take(participant))) continue;
      // Handed over: taken from a free lease (released or never held), not from an expired owner.
      this.#unloaded.set(participant, !held.has(participant));
    }
    this.#share = {
      owned: this.#leases.size,
      participants: this.#o.participants.length,
      processes: members.length,
      target: plan.target,
    };
  }

  /**
   * Lets `load` recover and load what a rebalance took, and what an earlier rebalance or load that
   * failed part-way took but never loaded (of `only`, when given). A lease that expired while this process took the others
   * (a slow step) may be another's already: it is dropped and the rest loaded.
   */
  async loadPending(load: LoadTaken, only?: ReadonlySet<string>): Promise<void> {
    // Between the old owner's last step and this one, each live process stepped the clock about once.
    // A process alone keeps the single-process rule: a schedule it takes starts from now.
    const keepSteps = this.#share.processes > 1 ? 2 * this.#share.processes : 0;
    for (let attempt = 0; this.unloaded(only).length > 0; attempt += 1) {
      const pending = new Set(this.unloaded(only));
      const handedOver = new Set([...pending].filter((p) => this.#unloaded.get(p)));
      try {
        await load(pending, handedOver, keepSteps);
        for (const participant of pending) this.#unloaded.delete(participant);
        return;
      } catch (error) {
        if (!(error instanceof LeaseLostError) || attempt >= 2) throw error;
        await this.dropLost();
      }
    }
  }

  /** Participants held but not loaded yet (of `only`, when given). */
  unloaded(only?: ReadonlySet<string>): string[] {
    return [...this.#unloaded.keys()].filter((p) => only === undefined || only.has(p));
  }

  /** Forgets every lease the store no longer gives this process (taken over after it expired). */
  async dropLost(): Promise<void> {
    for (const [participant, lease] of [...this.#leases]) {
      const current = await this.#o.store.getLease(participant);
      if (current?.ownerId !== lease.ownerId || current.token !== lease.token) this.#drop(participant);
    }
    this.#share = { ...this.#share, owned: this.#leases.size };
  }

  /**
   * Issues the next rebalance's heartbeat now, so the caller's own read runs beside it (on
   * PostgreSQL, one round trip of the step fewer); that rebalance takes its answer, or its error.
   * Issued twice before a rebalance, the second is not sent.
   */
  beatAhead(): void {
    if (this.#ahead !== undefined || this.#released) return;
    const { store, ownerId, leaseTtlMs } = this.#o;
    const members = store.heartbeatProcess(ownerId, leaseTtlMs);
    // Rejected before the rebalance awaits it, it is still that rebalance's error, not an unhandled one.
    this.#landing = members.catch(() => undefined);
    this.#ahead = { at: this.#o.nowMs(), members };
  }

  /** Forgets a heartbeat issued ahead for a step that failed before its rebalance: the next one beats anew. */
  dropAhead(): void {
    this.#ahead = undefined;
  }

  /**
   * Starts the keep-alive: every quarter of a lease lifetime it beats the heartbeat and renews the
   * held leases that no step renewed for that long, so a step that outlasts a lifetime (an agent
   * thinking for minutes) or a paced run sleeping longer than one between steps keeps its
   * participants, and readers see a live owner. It renews only under the tokens held
   * (`renewLeases`), never takes a lease back, and never changes what this process holds: losses
   * are still found at the next step boundary. Unreferenced, so it never keeps a process running.
   */
  startKeepAlive(): void {
    if (this.#keepAlive !== undefined || this.#released) return;
    const every = Math.min(
      KEEP_ALIVE_MS.max,
      Math.max(KEEP_ALIVE_MS.min, Math.floor(this.#o.leaseTtlMs / KEEP_ALIVE_PARTS)),
    );
    this.#keepAlive = setInterval(() => {
      // A round still waiting for a slow store is not doubled.
      if (this.#keepingAlive !== undefined) return;
      this.#keepingAlive = this.keepAlive()
        .then(
          () => {
            if (this.#failing) this.#o.log?.("keep-alive: the heartbeat and leases are renewed again");
            this.#failing = false;
          },
          // Told once per outage; the error itself is the next step's to report.
          (error: unknown) => {
            if (!this.#failing)
              this.#o.log?.(
                `keep-alive: the heartbeat and leases could not be renewed: ${error instanceof Error ? error.message : String(error)}`,
              );
            this.#failing = true;
          },
        )
        .finally(() => {
          this.#keepingAlive = undefined;
        });
    }, every);
    this.#keepAlive.unref();
  }

  /** Stops the keep-alive, holding the leases as they are (an open that failed: they expire as before). */
  stopKeepAlive(): void {
    clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }

  /**
   * One keep-alive round: the heartbeat when no step beat it for a quarter of a lease lifetime, then
   * one renewal of every held lease not renewed for as long. A renewed lease is kept only while this
   * process still holds it under the same token (a step boundary may have released it meanwhile).
   */
  async keepAlive(): Promise<void> {
    const { store, ownerId, leaseTtlMs } = this.#o;
    if (this.#released) return;
    const now = this.#o.nowMs();
    const stale = leaseTtlMs / KEEP_ALIVE_PARTS;
    if (this.#beatAt === undefined || now - this.#beatAt >= stale) {
      await store.heartbeatProcess(ownerId, leaseTtlMs);
      this.#beatAt = now;
    }
    const due = [...this.#leases.values()].filter(
      (lease) => now - (this.#renewedAt.get(lease.participantAddress) ?? Number.NEGATIVE_INFINITY) >= stale,
    );
    if (due.length === 0 || this.#released) return;
    for (const lease of await store.renewLeases(due, leaseTtlMs)) {
      if (this.#leases.get(lease.participantAddress)?.token !== lease.token) continue;
      this.#leases.set(lease.participantAddress, lease);
      this.#renewedAt.set(lease.participantAddress, now);
    }
  }

  /** Gives up every lease and leaves the live processes, so the others take over at once. */
  async releaseAll(): Promise<void> {
    this.#released = true;
    this.stopKeepAlive();
    await this.#keepingAlive;
    // A heartbeat sent ahead, taken or dropped by a failed step, must land before this process leaves.
    this.#ahead = undefined;
    await this.#landing;
    const { store, ownerId } = this.#o;
    for (const lease of this.#leases.values()) await store.releaseLease(lease).catch(() => undefined);
    this.#leases.clear();
    this.#renewedAt.clear();
    this.#unloaded.clear();
    await store.leaveProcesses(ownerId).catch(() => undefined);
  }

  async #take(participant: string): Promise<Lease | undefined> {
    const { store, ownerId, leaseTtlMs } = this.#o;
    const lease = await takeParticipantLease(store, participant, ownerId, leaseTtlMs);
    if (!lease) {
      this.#drop(participant);
      return undefined;
    }
    this.#leases.set(participant, lease);
    this.#renewedAt.set(participant, this.#o.nowMs());
    return lease;
  }

  #drop(participant: string): void {
    this.#leases.delete(participant);
    this.#renewedAt.delete(participant);
    this.#unloaded.delete(participant);
  }
}
