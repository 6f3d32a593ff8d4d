import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newSessionId, toolCallIdFor } from "../../src/mcp/index.js";

describe("tool_call_id derivation", () => {
  it("is deterministic per session and JSON-RPC id, and tells 1 from '1'", () => {
    const session = newSessionId();
    assert.equal(toolCallIdFor(session, 7), toolCallIdFor(session, 7));
    assert.notEqual(toolCallIdFor(session, 1), toolCallIdFor(session, "1"));
    assert.notEqual(toolCallIdFor(session, 1), toolCallIdFor(newSessionId(), 1));
  });

  it("stays within 256 characters for long string ids", () => {
    const session = newSessionId();
    const long = "x".repeat(1000);
    const id = toolCallIdFor(session, long);
    assert.ok(id.length <= 256);
    assert.equal(id, toolCallIdFor(session, long));
    assert.notEqual(id, toolCallIdFor(session, `${long}y`));
  });
});

describe("tool_call_id never stores the client's request id verbatim", () => {
  it("gives a fixed-size digest for ids of any length or content", () => {
    const session = newSessionId();
    const ids = ["1", "a", "secret-token-abc", "x".repeat(200), "line\nbreak", "ünïcode", 12, 0, -1];
    const seen = new Set<string>();
    for (const requestId of ids) {
      const id = toolCallIdFor(session, requestId);
      assert.match(id, new RegExp(`^mcp:${session}:[0-9a-f]{64}$`));
      if (String(requestId).length > 2) assert.ok(!id.includes(String(requestId)), id);
      seen.add(id);
    }
    assert.equal(seen.size, ids.length);
  });
});
