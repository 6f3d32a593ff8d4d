import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Upstream, UpstreamCallError } from "../../../src/mcp/index.js";
import { childNodeArgs } from "../../helpers/compiled/index.js";
import { RAW_UPSTREAM } from "../fixtures/gateway-process.js";

describe("an upstream call and its invocation's close", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-upstream-client-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a call whose invocation closed before it was sent is never sent, and says the upstream never had it", async () => {
    const env = {
      PATH: process.env.PATH ?? "",
      RAW_UPSTREAM_PID_FILE: join(dir, "upstream.pid"),
      RAW_UPSTREAM_GRANDCHILD_PID_FILE: join(dir, "grandchild.pid"),
      RAW_UPSTREAM_CALLS_FILE: join(dir, "calls.txt"),
    };
    const upstream = await Upstream.start({
      command: process.execPath,
      args: childNodeArgs(RAW_UPSTREAM),
      env,
    });
    try {
      const closed = new AbortController();
      closed.abort();
      const error = await upstream.call("stall", {}, { timeoutMs: 60_000, closed: closed.signal }).then(
        () => assert.fail("expected the call to be given up"),
        (e: unknown) => e,
      );
      assert.ok(error instanceof UpstreamCallError);
      assert.equal(error.kind, "closed");
      assert.match(error.message, /before the call was sent to the upstream, which never had it/);
      // The next call is sent and answered; the upstream saw only that one.
      await upstream.call("echo", { text: "x" }, { timeoutMs: 60_000 });
      assert.deepEqual(readFileSync(env.RAW_UPSTREAM_CALLS_FILE, "utf8").split("\n").filter(Boolean), [
        "echo",
      ]);
    } finally {
      await upstream.close();
    }
  });
});
