import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { callTool, type Harness, HarnessRuntime, ToolTimeoutError } from "../../../examples/seed-harness.js";
import { RuntimeManager } from "../../../src/index.js";
import { EXAMPLE, exampleManifest, modelStartingAt } from "../../helpers/example.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

/** A span reduced to what the spec fixes: name, parent, attributes, events. */
function shape(span: ReadableSpan, byId: Map<string, ReadableSpan>) {
  const parentId = span.parentSpanContext?.spanId;
  return {
    name: span.name,
    parent: parentId === undefined ? null : (byId.get(parentId)?.name ?? "missing"),
    attributes: span.attributes,
    events: span.events.map((e) => ({ name: e.name, attributes: e.attributes ?? {} })),
    ended: span.ended,
  };
}

describe("OpenTelemetry: spans per invocation and tool action", () => {
  before(() => {
    trace.setGlobalTracerProvider(provider);
  });
  after(async () => {
    trace.disable();
    await provider.shutdown();
  });

  it("a scripted run gives exactly the specified span tree, and no canary reaches a span", async () => {
    const marker = randomUUID();
    let invocation = 0;
    const harness: Harness = {
      async run(request, port) {
        assert.ok(port);
        invocation += 1;
        const args = { password: `pw:${marker}` };
        const tool = (behave: "ok" | "fail" | "timeout") => async () => {
          if (behave === "timeout") throw new ToolTimeoutError(`no answer for ${args.password}`);
          return behave === "ok";
        };
        if (invocation === 2) {
          await callTool(port, `call-2-0`, tool("timeout"));
          return { status: "partial_success", detail: marker };
        }
        await callTool(port, "call-1-0", tool("ok"));
        // A second dispatch of a live action is refused on that action's span.
        const admitted = await port.admit({ toolCallId: marker } as never);
        assert.equal(admitted.admitted, false);
        await callTool(port, "call-1-1", tool("fail"));
        await port.dispatch(`${request.actionInstanceId}:tool=2`);
        return { status: "succeeded", note: marker };
      },
    };
    const manager = await RuntimeManager.open({
      model: modelStartingAt(10, 10),
      manifest: exampleManifest(),
      runtime: new HarnessRuntime(harness),
      store: "memory:",
    });
    const first = await manager.step();
    const second = await manager.step();
    await manager.close();
    const [one] = first.invocations;
    const [two] = second.invocations;
    assert.ok(one && two);
    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const invocationAttrs = (id: string, ordinal: number, state: string) => ({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": EXAMPLE.participant,
      "raes.invocation.id": id,
      "raes.participant.address": EXAMPLE.participant,
      "raes.policy.address": EXAMPLE.policy,
      "raes.action_contract.address": EXAMPLE.action,
      "raes.observation_boundary.address": EXAMPLE.boundary,
      "raes.episode.id": one.toolActions[0]?.request.episodeId,
      "raes.invocation.ordinal": ordinal,
      "raes.invocation.state": state,
    });
    const tool = (invocationId: string, n: number, callId: string, settlement: string) => ({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": EXAMPLE.affordance,
      "gen_ai.tool.call.id": callId,
      "raes.tool_affordance.address": EXAMPLE.affordance,
      "raes.tool_action.id": `${invocationId}:tool=${n}`,
      "raes.invocation.id": invocationId,
      "raes.participant.address": EXAMPLE.participant,
      "raes.action_contract.address": EXAMPLE.action,
      "raes.observation_boundary.address": EXAMPLE.boundary,
      "raes.target.addresses": ["provision.node.customer-portal.service.http"],
      "raes.tool_action.ordinal": n,
      "raes.tool_action.settlement": settlement,
    });
    const dispatched = { name: "raes.tool_action.dispatched", attributes: {} };
    const invocationSpan = `invoke_agent ${EXAMPLE.participant}`;
    const toolSpan = `execute_tool ${EXAMPLE.affordance}`;
    const refusedAt = (code: string, call: string, id?: string) => ({
      name: "raes.tool_action.refused",
      attributes: {
        "raes.refusal.code": code,
        "raes.port.call": call,
        ...(id ? { "raes.tool_action.id": id } : {}),
      },
    });
    const expected = [
      {
        name: toolSpan,
        parent: invocationSpan,
        attributes: tool(one.invocationId, 1, "call-1-0", "succeeded"),
        events: [dispatched],
        ended: true,
      },
      {
        name: toolSpan,
        parent: invocationSpan,
        attributes: { ...tool(one.invocationId, 2, "call-1-1", "failed"), "error.type": undefined },
        events: [dispatched],
        ended: true,
      },
      {
        name: invocationSpan,
        parent: null,
        attributes: {
          ...invocationAttrs(one.invocationId, 0, "succeeded"),
          "raes.outer.status": "succeeded",
        },
        events: [
          refusedAt("request_invalid", "admit"),
          refusedAt("state_conflict", "dispatch", `${one.invocationId}:tool=2`),
        ],
        ended: true,
      },
      {
        name: toolSpan,
        parent: invocationSpan,
        attributes: tool(two.invocationId, 1, "call-2-0", "indeterminate"),
        events: [dispatched],
        ended: true,
      },
      {
        name: invocationSpan,
        parent: null,
        attributes: {
          ...invocationAttrs(two.invocationId, 1, "succeeded"),
          "raes.outer.status": "partial_success",
        },
        events: [],
        ended: true,
      },
    ];
    assert.deepEqual(
      spans.map((s) => shape(s, byId)),
      expected.map((e) => ({ ...e, attributes: JSON.parse(JSON.stringify(e.attributes)) })),
    );
    // Tool spans of one invocation share its trace; the two invocations are separate traces.
    assert.equal(spans[0]?.spanContext().traceId, spans[2]?.spanContext().traceId);
    assert.notEqual(spans[2]?.spanContext().traceId, spans[4]?.spanContext().traceId);
    assert.ok(!JSON.stringify(spans.map((s) => shape(s, byId))).includes(marker), "a span carries a canary");
  });
});
