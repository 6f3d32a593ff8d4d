import type { RuntimeModel } from "../compiler/index.js";
import { unresolvedIndeterminateActions } from "../operations/index.js";
import { absoluteStoreUrl, resolveCommands, resumeCommand } from "../printed/index.js";
import { codeOf } from "../records/index.js";
import { RuntimeManager } from "../runtime/index.js";
import { HostCode } from "./codes.js";
import { HostRuntime, type LiveInvocation } from "./host-runtime.js";

/** What a new MCP session gets: its own invocation, or the reason there is none and what to do. */
export type SessionClaim =
  | { readonly kind: "live"; readonly invocation: LiveInvocation }
  | { readonly kind: "refused"; readonly code: HostCode; readonly message: string };

/** Everything the driver needs to open its runtime manager. */
export interface HostDriverOptions {
  readonly model: RuntimeModel;
  /** The backend manifest JSON, as in the file. */
  readonly manifest: unknown;
  /** The store URL, as `raes run --store` takes it. */
  readonly store: string;
  /** The participant address this host runs. */
  readonly participant: string;
  readonly log: (line: string) => void;
  readonly leaseTtlMs?: number;
  /** How many clock steps one session may advance before it is told no attempt came due. */
  readonly maxStepsPerSession?: number;
}

/** Steps one session may advance by default: far beyond any cadence a scenario declares between attempts. */
const MAX_STEPS_PER_SESSION = 10_000;

/**
 * Host mode's policy clock: sessions drive it. Each claim opens a runtime manager on the store (with
 * `raes run`'s recovery, leases and history), advances the shared clock until the participant's next
 * due attempt starts, and hands that running invocation to the session. The manager closes, and its
 * leases go, once that invocation has returned; so between sessions `raes resolve` and `raes resume`
 * work on the store, and a participant's invocations stay serial: the next claim waits for it.
 */
export class HostDriver {
  readonly #options: HostDriverOptions;
  readonly #runtime: HostRuntime;
  #turns: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: HostDriverOptions) {
    this.#options = options;
    this.#runtime = new HostRuntime(options.participant, options.log);
  }

  /**
   * Claims the participant's next invocation for a new session; never throws. `wanted` is asked when
   * the session's turn comes (and before each clock step): a session that has ended while it waited
   * gets no invocation, so a client that gave up spends no attempt.
   */
  claim(wanted: () => boolean = () => true): Promise<SessionClaim> {
    let claimed: (claim: SessionClaim) => void = () => undefined;
    const answer = new Promise<SessionClaim>((resolve) => {
      claimed = resolve;
    });
    const turn = this.#turns.then(() => this.#turn(claimed, wanted));
    this.#turns = turn.catch((error: unknown) => {
      this.#options.log(`a session's turn failed: ${describe(error)}`);
    });
    turn.catch((error: unknown) => claimed(refused(HostCode.step_failed, describe(error))));
    return answer;
  }

  /** Refuses later claims and waits for the invocation in progress to return and its manager to close. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#turns;
  }

  /** One session's turn: the claim, then (for a live one) the invocation's whole life. */
  async #turn(claimed: (claim: SessionClaim) => void, wanted: () => boolean): Promise<void> {
    if (this.#closed) return claimed(refused(HostCode.step_failed, "the gateway is shutting down"));
    if (!wanted()) return claimed(ended());
    let manager: RuntimeManager | undefined;
    let advancing: Promise<unknown> = Promise.resolve();
    const advance = (): Promise<unknown> => {
      advancing = advancing.then(async () => {
        if (manager) await manager.step(1);
        else manager = await this.#open();
      });
      return advancing;
    };
    let live = false;
    try {
      const claim = await this.#claim(advance, () => manager, wanted);
      live = claim.kind === "live";
      // The step that runs a live invocation returns once the session has ended it (finally, below).
      claimed(claim);
    } finally {
      // A live invocation's step fails after its session was answered (its close not committed): said
      // here, since nobody else hears it. The claim's own failures were answered to the session.
      await advancing.catch((error: unknown) => {
        if (live) this.#options.log(`the session's invocation did not close: ${describe(error)}`);
      });
      // A failed open leaves no manager to close.
      await (manager as RuntimeManager | undefined)?.close();
    }
  }

  #open(): Promise<RuntimeManager> {
    return RuntimeManager.open({
      model: this.#options.model,
      manifest: this.#options.manifest,
      runtime: this.#runtime,
      store: this.#options.store,
      log: this.#options.log,
      ...(this.#options.leaseTtlMs === undefined ? {} : { leaseTtlMs: this.#options.leaseTtlMs }),
    });
  }

  async #claim(
    advance: () => Promise<unknown>,
    manager: () => RuntimeManager | undefined,
    wanted: () => boolean,
  ): Promise<SessionClaim> {
    const limit = this.#options.maxStepsPerSession ?? MAX_STEPS_PER_SESSION;
    for (let step = 0; step <= limit; step += 1) {
      if (!wanted()) return ended();
      const opened = manager();
      if (opened) {
        const stop = await this.#stopped(opened);
        if (stop) return stop;
      }
      const waiting = this.#runtime.nextInvocation();
      const first = await Promise.race([
        waiting.started.then((invocation) => ({ invocation })),
        advance().then(
          () => ({ advanced: true as const }),
          (error: unknown) => ({ error }),
        ),
      ]);
      if ("invocation" in first) return { kind: "live", invocation: first.invocation };
      const handed = waiting.cancel();
      if (handed) return { kind: "live", invocation: handed };
      if ("error" in first) return refused(HostCode.step_failed, describe(first.error));
    }
    return refused(
      HostCode.no_due_attempt,
      `no attempt of ${this.#options.participant} came due in ${limit} clock steps; start a new session to advance further`,
    );
  }

  /** The refusal for a participant whose scheduler cannot run an attempt now, with the next step. */
  async #stopped(manager: RuntimeManager): Promise<SessionClaim | undefined> {
    const participant = this.#options.participant;
    const mine = manager.schedulers().filter((s) => s.participantAddress === participant);
    if (mine.length === 0) {
      return refused(
        HostCode.participant_owned,
        `another live runtime owns ${participant}; stop it, or point this gateway at another --store`,
      );
    }
    if (mine.some((s) => s.lifecycle === "running")) return undefined;
    const store = absoluteStoreUrl(this.#options.store);
    const stopped = mine.find((s) => s.lifecycle === "stopped");
    if (!stopped) {
      return refused(
        HostCode.scheduler_completed,
        `${participant} has made every attempt its policy allows; the next step: start the gateway on a new --store to run the scenario again`,
      );
    }
    const unresolved = await unresolvedIndeterminateActions(manager.store, participant);
    const resolve = unresolved.map((id) => {
      const { confirmed, absent } = resolveCommands(id, store);
      return `${confirmed}  (or: ${absent})`;
    });
    const steps = [
      ...(resolve.length > 0
        ? [`resolve each indeterminate action (the effect happened, or did not): ${resolve.join("; ")}`]
        : []),
      `resume the scheduler: ${resumeCommand(participant, store)}`,
      "then start a new MCP session",
    ];
    return refused(
      HostCode.scheduler_stopped,
      `${participant}'s scheduler is stopped (${stopped.stopReason ?? "stopped"}); the next steps: ${steps.join("; ")}`,
    );
  }
}

/** The answer to a session that ended before its turn came: it gets no invocation. */
function ended(): SessionClaim {
  return refused(HostCode.session_ended, "this MCP session ended before its turn came; start a new one");
}

function refused(code: HostCode, message: string): SessionClaim {
  return { kind: "refused", code, message };
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = codeOf(error);
  return code === undefined || message.startsWith(code) ? message : `${code}: ${message}`;
}
