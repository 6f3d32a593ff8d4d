import assert from "node:assert/strict";
import {
  type ControlPlaneStore,
  type HistoryEvent,
  type InvocationSummary,
  type InvocationToolActionPort,
  MemoryControlPlaneStore,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantCrossingPolicy,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  RuntimeManager,
  type RuntimeModel,
  type RuntimeObserver,
} from "../../../src/index.js";
import { CallbackFailures } from "../../helpers/callback-failures.js";
import { exampleManifest, modelStartingAt } from "../../helpers/example.js";
import { withWriteFaults } from "../../helpers/faulty-store.js";

/** What a harness body can reach besides the port: the outer request and the store behind the fault switch. */
export interface BodyContext {
  readonly request: ParticipantActionRequest;
  readonly store: ControlPlaneStore;
  readonly failing: Set<string>;
}

/** What the harness does inside `admitAction`, with the invocation's open port. */
export type InvocationBody<T> = (port: InvocationToolActionPort, context: BodyContext) => Promise<T>;

/** Builds the outer result; the default is a valid `succeeded` result. */
export type OuterResultBuilder = (
  runtime: ReferenceAutonomousParticipantRuntime,
  request: ParticipantActionRequest,
  snapshot: ParticipantSnapshot,
) => unknown;

/** A participant runtime whose `admitAction` runs a test-supplied body with the attached port. */
export class ScriptedRuntime<T> extends ReferenceAutonomousParticipantRuntime {
  readonly ports: InvocationToolActionPort[] = [];
  value: T | undefined;
  /** What the body or `onAttach` threw, kept because the manager turns a throw into a failed invocation. */
  readonly failures = new CallbackFailures();
  readonly #body: (port: InvocationToolActionPort, request: ParticipantActionRequest) => Promise<T>;
  readonly #outer: OuterResultBuilder | undefined;
  readonly #onAttach: ((port: InvocationToolActionPort) => Promise<void>) | undefined;

  constructor(
    body: (port: InvocationToolActionPort, request: ParticipantActionRequest) => Promise<T>,
    outer?: OuterResultBuilder,
    onAttach?: (port: InvocationToolActionPort) => Promise<void>,
  ) {
    super();
    this.#body = body;
    this.#outer = outer;
    this.#onAttach = onAttach;
  }

  async attachInvocationToolActions(port: InvocationToolActionPort): Promise<void> {
    this.ports.push(port);
    await this.failures.guard(() => this.#onAttach?.(port));
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.ports.at(-1);
    if (!port) throw new Error("no port was attached before admitAction");
    this.value = await this.failures.guard(() => this.#body(port, request));
    if (this.#outer) return this.#outer(this, request, snapshot) as ParticipantActionResult;
    return this.nativeExecution(request, snapshot, episodeId, { status: "succeeded" });
  }
}

/** Options for one real invocation. */
export interface OneInvocationOptions<T> {
  readonly body: InvocationBody<T>;
  readonly outer?: OuterResultBuilder;
  readonly onAttach?: (port: InvocationToolActionPort) => Promise<void>;
  readonly model?: RuntimeModel;
  readonly manifest?: Record<string, unknown>;
  readonly crossingPolicy?: ParticipantCrossingPolicy;
  readonly observer?: RuntimeObserver;
  /** The manager's owner id, for a test that takes its lease away. */
  readonly ownerId?: string;
  /** Where the manager's log lines go, readable even when the step fails; default a fresh array. */
  readonly log?: string[];
  /** Wraps the store before the manager sees it (the real `store` injection point). */
  readonly wrapStore?: (store: ControlPlaneStore) => ControlPlaneStore;
  /** The body throws on purpose; otherwise whatever it throws (a failed assertion) fails the test. */
  readonly bodyThrows?: boolean;
}

/** Everything a test can inspect after one invocation closed. */
export interface ClosedInvocation<T> {
  readonly manager: RuntimeManager;
  readonly store: ControlPlaneStore;
  readonly failing: Set<string>;
  readonly port: InvocationToolActionPort;
  readonly invocationId: string;
  readonly summary: InvocationSummary;
  readonly value: T | undefined;
  /** This invocation's history events, in commit order. */
  readonly events: HistoryEvent[];
  /** The lines the manager logged, in order. */
  readonly log: readonly string[];
}

/**
 * Opens a real manager on a memory store behind the write-fault switch, runs exactly one
 * invocation whose harness runs `body`, then hands the result to `check` and closes the manager.
 */
export async function oneInvocation<T, R>(
  options: OneInvocationOptions<T>,
  check: (closed: ClosedInvocation<T>) => Promise<R>,
): Promise<R> {
  const faults = withWriteFaults(new MemoryControlPlaneStore());
  const store = options.wrapStore ? options.wrapStore(faults.store) : faults.store;
  const runtime = new ScriptedRuntime(
    (port, request) => options.body(port, { request, store, failing: faults.failing }),
    options.outer,
    options.onAttach,
  );
  const log = options.log ?? [];
  const manager = await RuntimeManager.open({
    model: options.model ?? modelStartingAt(10),
    manifest: options.manifest ?? exampleManifest(),
    runtime,
    store,
    log: (line) => log.push(line),
    ...(options.ownerId ? { ownerId: options.ownerId } : {}),
    ...(options.crossingPolicy ? { crossingPolicy: options.crossingPolicy } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
  });
  try {
    const { invocations } = await manager.step(1);
    if (!options.bodyThrows) runtime.failures.rethrow();
    const [summary] = invocations;
    const port = runtime.ports.at(-1);
    if (invocations.length !== 1 || !summary || !port)
      throw new Error("expected exactly one invocation with a port");
    const events = (await manager.history()).filter((e) => belongsTo(e, summary.invocationId));
    return await check({
      manager,
      store,
      failing: faults.failing,
      port,
      invocationId: summary.invocationId,
      summary,
      value: runtime.value,
      events,
      log,
    });
  } finally {
    await manager.close();
  }
}

/** True for the outer events of an invocation and the events of its tool actions. */
export function belongsTo(event: HistoryEvent, invocationId: string): boolean {
  return (
    event.action_instance_id === invocationId ||
    event.invocation_tool_context?.invocation_action_instance_id === invocationId
  );
}

/** The `action_attempted` order of an invocation's history, with its outer triple as "outer". */
export function attemptOrder(events: readonly HistoryEvent[], invocationId: string): string[] {
  return events
    .filter((e) => e.event_type === "action_attempted")
    .map((e) =>
      e.action_instance_id === invocationId ? "outer" : (e.invocation_tool_context?.tool_call_id ?? "?"),
    );
}

/** Asserts the invocation's tool actions settled as `settlements`, and that no scheduler stopped. */
export async function assertSettledStillRunning(
  { store, invocationId, manager }: ClosedInvocation<unknown>,
  settlements: readonly string[],
): Promise<void> {
  const actions = await store.listToolActions({ invocationId });
  assert.deepEqual(
    actions.map((a) => a.settlement),
    settlements,
  );
  assert.equal(
    manager.schedulers().some((s) => s.lifecycle === "stopped"),
    false,
  );
}
