import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { InvocationToolActionPortCore } from "../../src/port/index.js";
import { MAX_ID_LENGTH, parseToolActionRequest, requestCanonicalJson } from "../../src/port/shapes.js";
import { canonicalDigest, canonicalJson, type ToolActionRecord } from "../../src/records/index.js";
import { exampleModel } from "../helpers/example.js";
import { requestFor } from "../helpers/tool-requests.js";
import { FIRST_INVOCATION, openCoreOptions, rulesFor } from "./support/core.js";

/** Any UTF-16 code unit: lone surrogates, controls, quotes and backslashes included. */
const unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const id = fc.oneof(
  fc.string({ unit, minLength: 1, maxLength: 40 }),
  fc.string({ minLength: 1, maxLength: MAX_ID_LENGTH }),
  fc.constantFrom("\ud800", '"', "\\", "\u2028", "0", "__proto__"),
);
const rawRequest = fc.record(
  {
    toolCallId: id,
    invocationActionInstanceId: id,
    participantAddress: id,
    episodeId: id,
    participantImplementationRef: id,
    toolAffordanceAddress: id,
    actionContractAddress: id,
    observationBoundaryAddress: id,
    targetAddresses: fc.array(id, { minLength: 1, maxLength: 8 }),
    executionScopeRef: id,
    executionGeneration: fc.oneof(fc.integer(), fc.constantFrom(-0, Number.MAX_SAFE_INTEGER)),
    toolName: id,
  },
  {
    requiredKeys: [
      "toolCallId",
      "invocationActionInstanceId",
      "participantAddress",
      "episodeId",
      "participantImplementationRef",
      "toolAffordanceAddress",
      "actionContractAddress",
      "observationBoundaryAddress",
      "targetAddresses",
      "executionScopeRef",
      "executionGeneration",
    ],
  },
);

describe("requestCanonicalJson", () => {
  it("writes a parsed request exactly as canonicalJson does", () => {
    fc.assert(
      fc.property(rawRequest, (raw) => {
        const request = parseToolActionRequest(raw);
        assert.ok(request, "the generator makes valid requests");
        assert.equal(requestCanonicalJson(request), canonicalJson(request));
      }),
      { numRuns: 3000 },
    );
  });

  it("gives the port the request digest canonicalDigest gives", async () => {
    const model = exampleModel();
    const inserted: ToolActionRecord[] = [];
    const core = new InvocationToolActionPortCore({
      ...openCoreOptions(model),
      rules: rulesFor(model),
      limits: { maxToolActionsPerInvocation: 4, maxConcurrentToolActionsPerInvocation: 4 },
      ledger: {
        insert: async (record) => {
          inserted.push(record);
        },
        update: async () => true,
      },
    });
    core.open();
    const raw = requestFor(FIRST_INVOCATION, "call-1", { toolName: "probe" });
    const decision = await core.port.admit(raw);
    assert.equal(decision.admitted, true);
    assert.equal(inserted[0]?.requestDigest, canonicalDigest(parseToolActionRequest(raw)));
  });
});
