import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  type InvocationToolActionPort,
  type NativeOutcome,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../../src/index.js";
import type { ControlPlaneStore } from "../../../src/store/index.js";
import { type FaultyBackend, faultBefore, postgresBackend, sqliteBackend } from "../../crash/store-faults.js";
import { CallbackFailures } from "../../helpers/callback-failures.js";
import { EXAMPLE, exampleManifest, modelStartingAt } from "../../helpers/example.js";
import { PortedRuntime } from "../../helpers/ported-runtime.js";
import { outcomeFor, requestFor } from "../../helpers/tool-requests.js";
import { postgresAvailable } from "../../store/pg-available.js";

/** A runtime whose invocations run whatever the test scripts, with the invocation's port. */
class ScriptedRuntime extends PortedRuntime {
  script: (port: InvocationToolActionPort) => Promise<NativeOutcome> = async () => ({ status: "succeeded" });
  /** What the script threw: the manager would only turn it into a failed invocation. */
  readonly failures = new CallbackFailures();

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    const outcome = await this.failures.guard(() => {
      const port = this.takePort(request);
      assert.ok(port);
      return this.script(port);
    });
    return this.nativeExecution(request, snapshot, episodeId, outcome);
  }
}

/**
 * The example with a roomy attempt budget and `failure_policy: continue`, so one failure does not stop
 * it; its cadence starts at tick 10, so nothing runs at open and each test scripts its first step.
 */
function continuingModel() {
  const model = modelStartingAt(10, 1_000);
  const policies = Object.fromEntries(
    Object.entries(model.autonomousPolicies).map(([k, p]) => [k, { ...p, failurePolicy: "continue" }]),
  );
  return { ...model, autonomousPolicies: policies };
}

async function start(backend: FaultyBackend, store: ControlPlaneStore = backend.store) {
  const runtime = new ScriptedRuntime();
  const manager = await RuntimeManager.open({
    model: continuingModel(),
    manifest: exampleManifest(),
    runtime,
    store,
  });
  return { runtime, manager };
}

const invocationId = (n: number) => `${EXAMPLE.policy}:${EXAMPLE.participant}:${n}`;

function faultSuite(name: string, open: () => Promise<FaultyBackend>) {
  it(`${name}: admit, dispatch and complete answer ledger_unavailable while writes fail, write nothing, and the same port serves again`, async () => {
    const backend = await open();
    const { runtime, manager } = await start(backend);
    try {
      /** Runs one port call with the store broken: it must be refused and leave every row as it was. */
      const refusedWhileBroken = async (call: () => Promise<object>) => {
        const before = await backend.rows();
        const killed = backend.terminated();
        await backend.break();
        const answer = await call().finally(() => backend.heal());
        assert.deepEqual(await backend.rows(), before, "a refused call left a partial row");
        if (name === "postgres")
          assert.equal(backend.terminated(), killed + 1, "one backend was terminated mid-write");
        return answer;
      };
      runtime.script = async (port) => {
        const request = requestFor(port, "call-1");
        assert.deepEqual(await refusedWhileBroken(() => port.admit(request)), {
          admitted: false,
          refusal: "ledger_unavailable",
        });
        const decision = await port.admit(request);
        assert.deepEqual(decision, {
          admitted: true,
          actionInstanceId: `${port.invocationActionInstanceId}:tool=1`,
        });
        const id = decision.admitted ? decision.actionInstanceId : "";
        const refusal = { ok: false, refusal: "ledger_unavailable" };
        assert.deepEqual(await refusedWhileBroken(() => port.dispatch(id)), {
          accepted: false,
          refusal: refusal.refusal,
        });
        assert.deepEqual(await port.dispatch(id), { accepted: true });
        assert.deepEqual(await refusedWhileBroken(() => port.complete(id, outcomeFor(port, id))), refusal);
        assert.deepEqual(await port.complete(id, outcomeFor(port, id)), { ok: true });
        const second = await port.admit(requestFor(port, "call-2"));
        assert.ok(second.admitted);
        assert.deepEqual(await refusedWhileBroken(() => port.cancel(second.actionInstanceId)), refusal);
        assert.deepEqual(await port.cancel(second.actionInstanceId), { ok: true });
        return { status: "succeeded" };
      };
      const { invocations } = await manager.step();
      runtime.failures.rethrow();
      assert.equal(invocations[0]?.state, "succeeded");
      assert.deepEqual(
        invocations[0]?.toolActions.map((a) => [a.admissionOrdinal, a.settlement]),
        [
          [1, "succeeded"],
          [2, "withheld"],
        ],
      );
      const rows = await backend.rows();
      assert.equal(rows.events, 9, "two tool triples and the outer triple");
      assert.deepEqual(rows.invocations, [{ id: invocationId(0), state: "succeeded", ordinal: 0 }]);
    } finally {
      await manager.close();
      await backend.close();
    }
  });

  it(`${name}: step rejects with code ledger_unavailable while the store cannot open an invocation, writes nothing, and the next step works`, async () => {
    const backend = await open();
    const faulty = faultBefore(backend.store, "openInvocation", () => backend.break());
    const { manager } = await start(backend, faulty.store);
    try {
      assert.equal((await manager.step()).invocations[0]?.state, "succeeded");
      const before = await backend.rows();
      faulty.arm();
      await assert.rejects(
        manager.step().finally(() => backend.heal()),
        { code: "ledger_unavailable" },
      );
      assert.deepEqual(await backend.rows(), before, "the refused open left a partial row");

      const { invocations } = await manager.step();
      assert.deepEqual(
        invocations.map((s) => [s.invocationId, s.state]),
        [[invocationId(1), "succeeded"]],
      );
      await backend.break();
      await assert.rejects(
        manager.step().finally(() => backend.heal()),
        { code: "ledger_unavailable" },
      );
      assert.equal((await manager.step()).invocations[0]?.invocationId, invocationId(2));
    } finally {
      await manager.close();
      await backend.close();
    }
  });

  it(`${name}: a failed close commit rejects the step; the next step recovers the invocation, then runs a new one`, async () => {
    const backend = await open();
    const { runtime, manager } = await start(backend);
    try {
      runtime.script = async (port) => {
        const decision = await port.admit(requestFor(port, "call-1"));
        assert.ok(decision.admitted);
        assert.deepEqual(await port.dispatch(decision.actionInstanceId), { accepted: true });
        assert.deepEqual(
          await port.complete(decision.actionInstanceId, outcomeFor(port, decision.actionInstanceId)),
          {
            ok: true,
          },
        );
        await backend.break();
        return { status: "succeeded" };
      };
      const closing = manager.step().finally(() => backend.heal());
      await closing.then(
        () => undefined,
        () => undefined,
      );
      runtime.failures.rethrow();
      await assert.rejects(closing, { code: "ledger_unavailable" });
      const stuck = await backend.rows();
      assert.deepEqual(stuck.invocations, [{ id: invocationId(0), state: "running", ordinal: 0 }]);
      assert.deepEqual(stuck.toolActions, [
        { id: `${invocationId(0)}:tool=1`, phase: "settled", settlement: "succeeded" },
      ]);
      assert.equal(stuck.events, 0, "nothing of the close commit was written");

      runtime.script = async () => ({ status: "succeeded" });
      const { invocations } = await manager.step();
      assert.deepEqual(
        invocations.map((s) => [s.invocationId, s.state]),
        [[invocationId(1), "succeeded"]],
      );
      const rows = await backend.rows();
      assert.deepEqual(rows.invocations, [
        { id: invocationId(0), state: "failed", ordinal: 0 },
        { id: invocationId(1), state: "succeeded", ordinal: 1 },
      ]);
      const events = await manager.history();
      assert.deepEqual(
        events.map((e) => e.action_instance_id),
        [...Array(3).fill(`${invocationId(0)}:tool=1`), ...Array(3).fill(invocationId(1))],
        "the recovered tool triple, no outer triple for the failed attempt, then the next invocation",
      );
      assert.deepEqual(
        events.map((e) => e.sequence),
        [1, 2, 3, 4, 5, 6],
      );
    } finally {
      await manager.close();
      await backend.close();
    }
  });
}

describe("runtime under store faults: SQLite write lock held by another connection", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-rtfault-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  faultSuite("sqlite", () => sqliteBackend(join(dir, `store-${++n}.db`)));
});

const postgres = await postgresAvailable("runtime fault tests on PostgreSQL");

describe("runtime under store faults: PostgreSQL backends terminated with pg_terminate_backend", {
  skip: postgres ? false : "POSTGRES UNAVAILABLE",
}, () => {
  faultSuite("postgres", postgresBackend);

  it("postgres: every store connection terminated mid-invocation: the port keeps serving, a refusal writes nothing", async () => {
    const backend = await postgresBackend();
    const { runtime, manager } = await start(backend);
    /** Repeats a call the pool may first send down a dead connection; refusals must be clean. */
    const served = async <T extends object>(call: () => Promise<T>, ok: (answer: T) => boolean) => {
      for (let attempt = 0; attempt < 12; attempt += 1) {
        const before = await backend.rows();
        const answer = await call();
        if (ok(answer)) return answer;
        assert.equal((answer as { refusal?: string }).refusal, "ledger_unavailable");
        assert.deepEqual(await backend.rows(), before, "a refused call left a partial row");
      }
      assert.fail("the port never served again");
    };
    try {
      runtime.script = async (port) => {
        assert.ok((await backend.terminateAll()) > 0);
        const decision = await served(
          () => port.admit(requestFor(port, "call-1")),
          (d) => d.admitted,
        );
        const id = decision.admitted ? decision.actionInstanceId : "";
        assert.ok((await backend.terminateAll()) > 0);
        await served(
          () => port.dispatch(id),
          (r) => r.accepted,
        );
        assert.ok((await backend.terminateAll()) > 0);
        await served(
          () => port.complete(id, outcomeFor(port, id)),
          (r) => r.ok,
        );
        await backend.terminateAll();
        return { status: "succeeded" };
      };
      const first = await manager.step().catch((error: unknown) => error);
      runtime.failures.rethrow();
      if (first instanceof Error) {
        assert.equal((first as { code?: string }).code, "ledger_unavailable", String(first));
        runtime.script = async () => ({ status: "succeeded" });
        assert.equal((await manager.step()).invocations[0]?.state, "succeeded");
      } else {
        assert.equal((first as { invocations: { state: string }[] }).invocations[0]?.state, "succeeded");
      }
      const rows = await backend.rows();
      assert.deepEqual(rows.toolActions, [
        { id: `${invocationId(0)}:tool=1`, phase: "settled", settlement: "succeeded" },
      ]);
    } finally {
      await manager.close();
      await backend.close();
    }
  });
});
