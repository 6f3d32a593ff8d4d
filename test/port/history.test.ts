import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { participantHistoryEvents } from "../../src/index.js";
import { EXAMPLE } from "../helpers/example.js";
import { codeOf, outcomeFor, requestFor } from "../helpers/tool-requests.js";
import { oneInvocation } from "./support/invocation.js";
import { expectAdmitted } from "./support/refusals.js";

const TRIPLE = ["action_attempted", "state_transition_recorded", "observation_emitted"];

describe("tool-action history", () => {
  it("triples in admission order right before the outer triple, with the full invocation_tool_context", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const ids = [];
          for (const call of ["a", "b", "c", "d"])
            ids.push(await expectAdmitted(port, requestFor(port, call)));
          const [a = "", b = "", c = "", d = ""] = ids;
          for (const id of [d, b, a]) assert.equal(codeOf(await port.dispatch(id)), "accepted");
          assert.equal(codeOf(await port.complete(d, outcomeFor(port, d))), "ok");
          assert.equal(codeOf(await port.cancel(c)), "ok");
          assert.equal(codeOf(await port.complete(a, outcomeFor(port, a, { status: "failed" }))), "ok");
        },
      },
      async ({ manager, events, invocationId, port }) => {
        assert.equal(events.length, 15);
        const sequences = events.map((e) => e.sequence);
        const first = sequences[0] ?? 0;
        assert.deepEqual(
          sequences,
          Array.from({ length: 15 }, (_, i) => first + i),
          "contiguous: one commit",
        );
        assert.deepEqual(
          events.map((e) => e.event_type),
          Array(5).fill(TRIPLE).flat(),
        );
        const owners = events.map((e) => e.action_instance_id);
        const expectedOwners = [1, 2, 3, 4].flatMap((n) => Array(3).fill(`${invocationId}:tool=${n}`));
        assert.deepEqual(owners, [...expectedOwners, ...Array(3).fill(invocationId)]);
        const settlements = { 1: "failed", 2: "indeterminate", 3: "withheld", 4: "succeeded" } as Record<
          number,
          string
        >;
        for (const event of events.slice(0, 12)) {
          const ordinal = Number(event.action_instance_id.split(":tool=")[1]);
          assert.deepEqual(event.invocation_tool_context, {
            invocation_action_instance_id: invocationId,
            invocation_action_contract_address: EXAMPLE.action,
            tool_affordance_address: EXAMPLE.affordance,
            tool_call_id: ["a", "b", "c", "d"][ordinal - 1],
            admission_ordinal: ordinal,
            settlement: settlements[ordinal],
            execution_scope_ref: port.executionScopeRef,
            execution_generation: port.executionGeneration,
          });
          assert.deepEqual(
            event.temporal_contexts.map((c) => c.observation_point),
            [port.observationPoint],
          );
          assert.equal(event.episode_id, port.episodeId);
          // As RAES: only action_attempted names the actor (a runtime without an identity: its ref at 0).
          assert.equal(
            event.actor_provenance,
            event.event_type === "action_attempted"
              ? `participant-implementation:${EXAMPLE.implementation}@0`
              : undefined,
          );
        }
        for (const event of events.slice(12)) assert.equal(event.invocation_tool_context, undefined);
        const view = await participantHistoryEvents(manager, EXAMPLE.participant);
        const viewed = view.filter(
          (e) => e.invocation_tool_context?.invocation_action_instance_id === invocationId,
        );
        assert.deepEqual(
          viewed.map((e) => e.invocation_tool_context),
          events.slice(0, 12).map((e) => e.invocation_tool_context),
          "the participant view shows the same field",
        );
        for (let n = 1; n <= 4; n += 1) {
          const op = await manager.getOperation(`${invocationId}:tool=${n}`);
          assert.equal(op?.kind, "tool_action");
          assert.equal(op?.parentId, invocationId);
          assert.equal(op?.settlement, settlements[n]);
        }
      },
    );
  });

  it("no tool argument or result reaches the store or the history", async () => {
    const secret = "s3cr3t-tool-argument";
    await oneInvocation(
      {
        body: async (port) => {
          const refused = await port.admit({
            ...requestFor(port, "a"),
            arguments: { password: secret },
          } as never);
          assert.equal(codeOf(refused), "request_invalid");
          const id = await expectAdmitted(port, requestFor(port, "a"));
          await port.dispatch(id);
          const withResult = { ...outcomeFor(port, id), result: secret };
          assert.equal(codeOf(await port.complete(id, withResult as never)), "outcome_invalid");
          assert.equal(codeOf(await port.complete(id, outcomeFor(port, id))), "ok");
        },
      },
      async ({ store, events, invocationId }) => {
        const everything = JSON.stringify([events, await store.listToolActions({ invocationId })]);
        assert.equal(everything.includes(secret), false);
        assert.ok(everything.includes(`${invocationId}:tool=1`), "the scan covered the stored action");
      },
    );
  });
});
