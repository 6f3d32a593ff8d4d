import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  connectToolActionPort,
  type InvocationToolActionPort,
  serveToolActionPort,
} from "../../../src/index.js";
import { codeOf, requestFor } from "../../helpers/tool-requests.js";
import { oneInvocation } from "../support/invocation.js";
import { malformedAnswers } from "../support/malformed.js";
import { WorkerPortHost } from "../support/worker-host.js";

type Bridge = (port: InvocationToolActionPort, admittedId: string) => Promise<string[]>;

/**
 * A bridge gives "an object with the same port API": for the same malformed calls it must answer the
 * in-process port's refusal codes, never throw for a refusal, and add no record.
 */
describe("bridges answer malformed calls exactly as the in-process port does", () => {
  let host: WorkerPortHost;
  let dir = "";
  before(() => {
    host = new WorkerPortHost();
    dir = mkdtempSync(join(tmpdir(), "raes-fidelity-"));
  });
  after(async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const bridges: Array<[string, Bridge]> = [
    [
      "worker thread (calls built inside the worker)",
      async (port, id) => host.malformed(await host.connect(port), id),
    ],
    [
      "unix socket",
      async (port, id) => {
        const served = await serveToolActionPort(port, { socketPath: join(dir, "fidelity.sock") });
        try {
          const remote = await connectToolActionPort({ socketPath: served.socketPath, token: served.token });
          return await malformedAnswers(remote, id);
        } finally {
          await served.close();
        }
      },
    ],
  ];

  it("worker thread: a refused call leaves the bridge idle, so the worker can still exit", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const remote = await host.connect(port);
          assert.equal(codeOf(await remote.admit(requestFor(remote, "warm-up"))), "admitted");
          const [before, after] = await host.refsAroundMalformedAdmit(remote);
          assert.equal(after, before, "no MessagePort is left keeping the worker alive");
        },
      },
      async () => undefined,
    );
  });

  for (const [name, answersOver] of bridges) {
    it(`${name}: the same refusals, no exception, no record`, async () => {
      await oneInvocation(
        {
          body: async (port, { store }) => {
            const decision = await port.admit(requestFor(port, "a"));
            assert.ok(decision.admitted);
            assert.equal(codeOf(await port.dispatch(decision.actionInstanceId)), "accepted");
            const expected = await malformedAnswers(port, decision.actionInstanceId);
            assert.ok(
              expected.every((a) => /-> (request_invalid|outcome_invalid)$/.test(a)),
              expected.join("\n"),
            );
            assert.deepEqual(await answersOver(port, decision.actionInstanceId), expected);
            const records = await store.listToolActions({ invocationId: port.invocationActionInstanceId });
            assert.deepEqual(
              records.map((r) => [r.toolCallId, r.phase]),
              [["a", "dispatched"]],
            );
          },
        },
        async () => undefined,
      );
    });
  }
});
