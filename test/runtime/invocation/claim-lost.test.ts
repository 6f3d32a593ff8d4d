import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  type InvocationToolActionPort,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import { admitAndDispatch, awaitApproval } from "../../../src/port/index.js";
import {
  type ControlPlaneStore,
  MemoryControlPlaneStore,
  openControlPlaneStore,
  StoreSchemaDamagedError,
} from "../../../src/store/index.js";
import { EXAMPLE, exampleManifest, modelStartingAt } from "../../helpers/example.js";
import { aroundStoreMethod } from "../../helpers/faulty-store.js";
import { outcomeFor, requestFor } from "../../helpers/tool-requests.js";
import { freshSchema, postgresAvailable } from "../../store/pg-available.js";
import { RecordingRuntime } from "../harnesses.js";

const dir = mkdtempSync(join(tmpdir(), "raes-claim-lost-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const spans = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
before(() => {
  trace.setGlobalTracerProvider(provider);
});
after(async () => {
  trace.disable();
  await provider.shutdown();
});

/**
 * A store whose first tool-action claim throws as if the connection dropped: after its commit
 * (`committed`), or before it.
 */
function firstClaimAnswerLost(store: ControlPlaneStore, committed = true): ControlPlaneStore {
  const insert = store.insertToolAction.bind(store);
  let lost = false;
  store.insertToolAction = async (...args) => {
    if (!lost && !committed) {
      lost = true;
      throw new Error("connection terminated before COMMIT");
    }
    await insert(...args);
    if (lost) return;
    lost = true;
    throw new Error("connection terminated after COMMIT");
  };
  return store;
}

/** How the invocation goes on after its first claim's answer was lost. */
type Then =
  | "next-call"
  | "retry"
  | "retry-one-step"
  | "nothing"
  | "nothing-one-step"
  /** A one-step retry whose harness reports an outcome although its dispatch was refused. */
  | "retry-one-step-completes"
  /** The same, reporting the outcome unknown instead. */
  | "retry-one-step-reports-unknown"
  /** A retry that asks for an operator's approval instead of dispatching. */
  | "retry-awaits-approval";

/** One invocation: a claim whose answer is lost, then `then`; what each port call answered is kept. */
class ClaimLost extends RecordingRuntime {
  readonly answers: string[] = [];

  constructor(readonly then: Then) {
    super();
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const port = this.attached.find((p) => p.invocationActionInstanceId === request.actionInstanceId);
    if (port === undefined) throw new Error("no port attached");
    await this.#calls(port);
    return super.modelAction(request, snapshot, context);
  }

  async #calls(port: InvocationToolActionPort): Promise<void> {
    const oneStep = this.then.includes("one-step");
    const first = oneStep
      ? (await admitAndDispatch(port, requestFor(port, "lost"))).decision
      : await port.admit(requestFor(port, "lost"));
    this.answers.push(first.admitted ? "admitted" : first.refusal);
    if (this.then === "nothing" || this.then === "nothing-one-step") return;
    const call = this.then === "next-call" ? "next" : "lost";
    const ask = async () =>
      oneStep
        ? await admitAndDispatch(port, requestFor(port, call))
        : { decision: await port.admit(requestFor(port, call)), receipt: undefined };
    let answer = await ask();
    // Refused while the store could not say whether the lost claim is stored: asked once more.
    if (!answer.decision.admitted && answer.decision.refusal === "ledger_unavailable") {
      this.answers.push(answer.decision.refusal);
      answer = await ask();
    }
    const { decision } = answer;
    if (!decision.admitted) {
      this.answers.push(decision.refusal);
      return;
    }
    const id = decision.actionInstanceId;
    this.answers.push(id.slice(id.lastIndexOf(":") + 1));
    if (this.then === "retry-awaits-approval") {
      const held = await awaitApproval(port, id, { timeoutSeconds: 1 });
      this.answers.push(held.ok ? held.decision : held.refusal);
      return;
    }
    const receipt = answer.receipt ?? (await port.dispatch(id));
    if (!receipt.accepted) {
      this.answers.push(receipt.refusal);
      if (this.then === "retry-one-step-completes") {
        const ack = await port.complete(id, outcomeFor(port, id));
        this.answers.push(ack.ok ? "completed" : ack.refusal);
      }
      if (this.then === "retry-one-step-reports-unknown") {
        const ack = await port.reportUnknown(id, "tool_timeout");
        this.answers.push(ack.ok ? "reported" : ack.refusal);
      }
      return;
    }
    assert.equal((await port.complete(id, outcomeFor(port, id))).ok, true);
  }
}

/** The store with `method` failing once, as over a dropped connection, then answering again. */
function failingOnce(
  store: ControlPlaneStore,
  method: "updateToolAction" | "getToolAction",
): ControlPlaneStore {
  let failed = false;
  return aroundStoreMethod(store, method, (_args, call) => {
    if (failed) return call();
    failed = true;
    return Promise.reject(new Error("connection terminated"));
  });
}

async function afterLostClaim(
  opened: ControlPlaneStore,
  then: Then,
  committed = true,
  readFailsOnce = false,
  updateFailsOnce = false,
) {
  let store = firstClaimAnswerLost(opened, committed);
  if (updateFailsOnce) store = failingOnce(store, "updateToolAction");
  if (readFailsOnce) store = failingOnce(store, "getToolAction");
  const runtime = new ClaimLost(then);
  const manager = await RuntimeManager.open({
    model: modelStartingAt(10, 10),
    manifest: exampleManifest(),
    runtime,
    store,
    log: () => undefined,
  });
  try {
    const { invocations } = await manager.step();
    const stored = await store.listToolActions({ participantAddress: EXAMPLE.participant });
    const history = await manager.history();
    return {
      answers: runtime.answers,
      summary: invocations[0]?.toolActions.map((a) => `${a.toolCallId}:${a.settlement}`),
      stored: stored.map((a) => `${a.toolCallId}:${a.admissionOrdinal}:${a.phase}:${a.settlement}`),
      reasons: stored.map((a) => a.withheldReason ?? a.failureClass ?? "-"),
      attempted: history.filter((e) => e.event_type === "action_attempted").length,
      stopped: (await store.listSchedulers())[0]?.stopReason,
    };
  } finally {
    await manager.close();
    await opened.close();
  }
}

/**
 * A claim whose answer was lost, then a store that cannot read it back at the close: the close fails
 * and leaves the invocation running; the manager's own close recovers it, knowing the claim never ran.
 */
async function unreadAtClose(
  opened: ControlPlaneStore,
  then: "nothing" | "nothing-one-step",
  outageMs = Number.POSITIVE_INFINITY,
  readError: () => Error = () => new Error("connection terminated"),
) {
  let readable = false;
  let outageFrom: number | undefined;
  // Reads fail from the first one on, for `outageMs`.
  const store = aroundStoreMethod(firstClaimAnswerLost(opened), "getToolAction", (_args, call) => {
    outageFrom ??= Date.now();
    if (readable || Date.now() - outageFrom >= outageMs) return call();
    return Promise.reject(readError());
  });
  const open = () =>
    RuntimeManager.open({
      model: modelStartingAt(10, 10),
      manifest: exampleManifest(),
      runtime: new ClaimLost(then),
      store,
      log: () => undefined,
    });
  const first = await open();
  let failure: unknown;
  spans.reset();
  try {
    await first.step();
  } catch (error) {
    failure = error;
  } finally {
    await first.close().catch(() => undefined);
  }
  const invocationSpans = spans
    .getFinishedSpans()
    .filter((span) => span.name.startsWith("invoke_agent"))
    .map((span) => span.attributes["raes.invocation.state"]);
  const row = async () =>
    (await store.listToolActions({ participantAddress: EXAMPLE.participant })).map(
      (a) =>
        `${a.toolCallId}:${a.admissionOrdinal}:${a.phase}:${a.settlement}:${a.withheldReason ?? a.failureClass ?? "-"}`,
    );
  const left = {
    stored: await row(),
    running: (await store.listOpenInvocations()).length,
  };
  readable = true;
  const second = await open();
  try {
    return {
      failure: failure instanceof Error ? `${(failure as { code?: string }).code}: ${failure.message}` : "",
      left,
      invocationSpans,
      recovered: await row(),
      running: (await store.listOpenInvocations()).length,
      history: (await second.history()).map((e) => e.event_type),
    };
  } finally {
    await second.close();
    await opened.close();
  }
}

/**
 * The same, but the process that failed the close steps again: its own recovery knows the claim's
 * caller heard a refusal, and settles it as the port would have.
 */
async function recoveredInProcess(opened: ControlPlaneStore, then: "nothing" | "nothing-one-step") {
  const store = aroundStoreMethod(firstClaimAnswerLost(opened), "getToolAction", () =>
    Promise.reject(new Error("connection terminated")),
  );
  const manager = await RuntimeManager.open({
    model: modelStartingAt(10, 10),
    manifest: exampleManifest(),
    runtime: new ClaimLost(then),
    store,
    log: () => undefined,
  });
  try {
    const failure = await manager.step().then(
      () => "",
      (error: Error) => error.message,
    );
    const id = /the claim (\S+) \(its answer was lost\)/.exec(failure)?.[1] ?? "";
    await manager.step();
    const claim = await opened.getToolAction(id);
    return {
      claim: `${claim?.phase}:${claim?.settlement}:${claim?.withheldReason ?? claim?.failureClass}`,
      unknownReason: claim?.unknownReason,
      stopped: (await opened.listSchedulers())[0]?.stopReason,
    };
  } finally {
    await manager.close();
    await opened.close();
  }
}

/**
 * The same, with the invocation due at the open (start tick 0): the failure ends the open, which
 * recovers the claim it knows never ran before it gives up.
 */
async function failedOpen(opened: ControlPlaneStore) {
  const store = aroundStoreMethod(firstClaimAnswerLost(opened), "getToolAction", () =>
    Promise.reject(new Error("connection terminated")),
  );
  try {
    const failure = await RuntimeManager.open({
      model: modelStartingAt(0, 10),
      manifest: exampleManifest(),
      runtime: new ClaimLost("nothing"),
      store,
      log: () => undefined,
    }).then(
      async (manager) => {
        await manager.close();
        return "opened";
      },
      (error: Error) => error.message,
    );
    const [claim] = await opened.listToolActions({ participantAddress: EXAMPLE.participant });
    return {
      failure,
      claim: `${claim?.phase}:${claim?.settlement}:${claim?.withheldReason}`,
      running: (await opened.listOpenInvocations()).length,
    };
  } finally {
    await opened.close();
  }
}

/** The cases, run on each store. */
async function cases(open: (name: string) => Promise<ControlPlaneStore>): Promise<void> {
  const next = await afterLostClaim(await open("next"), "next-call");
  assert.deepEqual(next.answers, ["ledger_unavailable", "tool=2"], "the next call is admitted, after it");
  assert.deepEqual(next.stored, ["lost:1:settled:withheld", "next:2:settled:succeeded"]);
  assert.deepEqual(next.reasons, ["claim_unanswered", "-"], "withheld as unanswered: it never ran");
  assert.deepEqual(next.summary, ["lost:withheld", "next:succeeded"], "the close settles the stored claim");
  assert.equal(next.attempted, 1 + 2, "the history holds the invocation and both actions");

  const failed = await afterLostClaim(await open("failed"), "next-call", false);
  assert.deepEqual(
    failed.answers,
    ["ledger_unavailable", "tool=1"],
    "a claim that never committed frees its ordinal",
  );
  assert.deepEqual(failed.stored, ["next:1:settled:succeeded"]);

  const unread = await afterLostClaim(await open("unread"), "next-call", true, true);
  assert.deepEqual(
    unread.answers,
    ["ledger_unavailable", "ledger_unavailable", "tool=2"],
    "no claim while the lost one cannot be read back; then it is",
  );
  assert.deepEqual(unread.stored, ["lost:1:settled:withheld", "next:2:settled:succeeded"]);

  const left = await afterLostClaim(await open("left"), "nothing");
  assert.deepEqual(left.stored, ["lost:1:settled:withheld"], "never an admitted row left behind");

  const retry = await afterLostClaim(await open("retry"), "retry");
  assert.deepEqual(
    retry.answers,
    ["ledger_unavailable", "tool=1", "state_conflict"],
    "a retry of the call gets its decision, and no dispatch: it was withheld",
  );
  assert.deepEqual(retry.stored, ["lost:1:settled:withheld"]);

  const oneStep = await afterLostClaim(await open("one-step"), "retry-one-step");
  assert.deepEqual(oneStep.answers, ["ledger_unavailable", "tool=1", "state_conflict"]);
  assert.deepEqual(oneStep.stored, ["lost:1:settled:failed"], "recorded dispatched, it never ran: failed");
  assert.equal(oneStep.stopped, undefined);

  const unanswered = await afterLostClaim(await open("one-step-left"), "nothing-one-step");
  assert.deepEqual(unanswered.stored, ["lost:1:settled:failed"]);
  assert.deepEqual(unanswered.reasons, ["claim_unanswered"], "its failure class says it never ran");
  assert.equal(unanswered.stopped, undefined, "no indeterminate action stops the scheduler");

  // The read-back's settlement fails to be written too: the close settles it as not run all the same.
  for (const [name, then, expected] of [
    ["unwritten", "nothing", "lost:1:settled:withheld"],
    ["unwritten-one-step", "nothing-one-step", "lost:1:settled:failed"],
  ] as const) {
    const lost = await afterLostClaim(await open(name), then, true, false, true);
    assert.deepEqual([lost.stored, lost.reasons], [[expected], ["claim_unanswered"]], name);
    assert.equal(lost.stopped, undefined, name);
  }

  // Its settlement as not run fails to be written, then the call is retried: the retry is refused
  // whatever it asks (dispatch, an outcome, unknown, an approval), and the claim stays not run.
  const refused = ["ledger_unavailable", "tool=1", "state_conflict"];
  for (const [then, answers, stored] of [
    ["retry", refused, "lost:1:settled:withheld"],
    ["retry-one-step-completes", [...refused, "state_conflict"], "lost:1:settled:failed"],
    ["retry-one-step-reports-unknown", [...refused, "state_conflict"], "lost:1:settled:failed"],
    ["retry-awaits-approval", refused, "lost:1:settled:withheld"],
  ] as const) {
    const retried = await afterLostClaim(await open(`unwritten-${then}`), then, true, false, true);
    assert.deepEqual(
      [retried.answers, retried.stored, retried.reasons, retried.stopped],
      [answers, [stored], ["claim_unanswered"], undefined],
      then,
    );
  }

  // Never read back at the close: the invocation is left running, and recovery settles the claim.
  const neverRead = await unreadAtClose(await open("unread-at-close"), "nothing");
  assert.match(
    neverRead.failure,
    /^ledger_unavailable: store unavailable: the store could not say whether the claim \S+ \(its answer was lost\) is stored \(connection terminated\): the invocation is not closed, and recovery settles it as interrupted$/,
  );
  assert.deepEqual(
    neverRead.left,
    { stored: ["lost:1:settled:withheld:claim_unanswered"], running: 0 },
    "nothing closed without it; the manager's close recovers it, knowing it never ran",
  );
  assert.deepEqual(neverRead.invocationSpans, ["commit_failed"], "its span ends as a close not committed");
  assert.deepEqual(neverRead.recovered, ["lost:1:settled:withheld:claim_unanswered"]);
  assert.equal(neverRead.running, 0);
  assert.ok(neverRead.history.includes("action_attempted"), "the recovered close is in the history");
  // The read-back fails because the store's schema is damaged: the step says so, not ledger_unavailable.
  const damaged = await unreadAtClose(
    await open("unread-at-close-damaged"),
    "nothing",
    Number.POSITIVE_INFINITY,
    () => new StoreSchemaDamagedError("control-plane store x is damaged: no such table: tool_actions"),
  );
  assert.match(
    damaged.failure,
    /^store\.schema-damaged: the store could not say whether the claim \S+ \(its answer was lost\) is stored \(control-plane store x is damaged: no such table: tool_actions\): the invocation is not closed/,
  );
  assert.deepEqual(
    damaged.recovered,
    ["lost:1:settled:withheld:claim_unanswered"],
    "the claim is still known never to have run",
  );
  // The store answers again 300 ms into the close's reads: the close waits for it, and goes on.
  const lateRead = await unreadAtClose(await open("read-at-close-late"), "nothing", 300);
  assert.equal(lateRead.failure, "", "the close waited for the store");
  assert.deepEqual(lateRead.left, { stored: ["lost:1:settled:withheld:claim_unanswered"], running: 0 });
  assert.deepEqual(lateRead.invocationSpans, ["succeeded"]);
  const unreadOneStep = await unreadAtClose(await open("unread-at-close-one-step"), "nothing-one-step");
  assert.deepEqual(
    unreadOneStep.left.stored,
    ["lost:1:settled:failed:claim_unanswered"],
    "recorded dispatched, it never ran: failed, not indeterminate",
  );
  assert.deepEqual(unreadOneStep.recovered, unreadOneStep.left.stored, "nothing left for the next open");

  const atOpen = await failedOpen(await open("failed-open"));
  assert.match(atOpen.failure, /the claim \S+ \(its answer was lost\)/);
  assert.deepEqual(
    [atOpen.claim, atOpen.running],
    ["settled:withheld:claim_unanswered", 0],
    "an open that fails so recovers the claim before giving up",
  );

  // Recovered by the process that failed the close, which knows the caller heard a refusal.
  const inProcess = await recoveredInProcess(await open("in-process"), "nothing");
  // The attempt is consumed all the same: the example's failure_policy (stop) stops its scheduler.
  assert.deepEqual(inProcess, {
    claim: "settled:withheld:claim_unanswered",
    unknownReason: undefined,
    stopped: "failure_policy",
  });
  const inProcessOneStep = await recoveredInProcess(await open("in-process-one-step"), "nothing-one-step");
  assert.deepEqual(
    inProcessOneStep,
    { claim: "settled:failed:claim_unanswered", unknownReason: undefined, stopped: "failure_policy" },
    "a one-step claim that never ran is failed, not indeterminate: no operator needed",
  );
}

describe("a tool-action claim whose answer was lost (it committed; the port heard it fail)", () => {
  it("memory and SQLite: later calls are admitted, a retry gets it, and the close settles it", async () => {
    await cases(async () => new MemoryControlPlaneStore());
    await cases((name) => openControlPlaneStore(`sqlite:${join(dir, `${name}.db`)}`));
  });

  it("PostgreSQL: the same", async (t) => {
    if (!(await postgresAvailable("lost claims on PostgreSQL"))) return t.skip("POSTGRES UNAVAILABLE");
    const drops: (() => Promise<void>)[] = [];
    try {
      await cases(async () => {
        const place = freshSchema("raes_claim_lost");
        drops.push(() => place.drop());
        return openControlPlaneStore(place.url);
      });
    } finally {
      for (const drop of drops) await drop();
    }
  });
});
