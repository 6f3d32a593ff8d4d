import assert from "node:assert/strict";
import { createServer, type Server, Socket } from "node:net";
import { describe, it } from "node:test";
import { breakingRunPlace, runWithBreakingStore } from "../helpers/breaking-run.js";
import { adminQuery, POSTGRES_TEST_URL, postgresAvailable } from "../store/pg-available.js";

const available = await postgresAvailable("raes run whose store stops answering as it closes");
/** The name of the PostgreSQL store's lease release statement: the first write of a close that gives leases back. */
const RELEASE_STATEMENT = "raes_lease_release";

/**
 * A TCP proxy to PostgreSQL that goes silent for good once a client sends `trigger`: from then on it
 * forwards nothing either way and keeps every connection open, as a server behind a dropped route.
 */
async function silencingProxy(target: URL, trigger: string): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  let silent = false;
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    upstream.connect(Number(target.port || 5432), target.hostname);
    // The end of the last chunk, so a name split across two chunks is still seen.
    let tail: Buffer = Buffer.alloc(0);
    client.on("data", (chunk: Buffer) => {
      if (!silent && Buffer.concat([tail, chunk]).includes(trigger)) silent = true;
      tail = chunk.subarray(Math.max(0, chunk.length - trigger.length + 1));
      if (!silent) upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!silent) client.write(chunk);
    });
    for (const s of [client, upstream]) s.on("error", () => undefined);
    client.on("close", () => upstream.destroy());
    // Once silent, a server that drops its idle end (idle_session_timeout) is not passed on either.
    upstream.on("close", () => {
      if (!silent) client.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return {
    port: address.port,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

describe("raes run whose store stops answering while it gives its participants back", {
  skip: available ? false : "POSTGRES UNAVAILABLE",
}, () => {
  const { dir, schema, url } = breakingRunPlace("run_close_bound");

  it("waits 10 s for the close, says the leases will expire, reports the run's error and exits", async () => {
    const proxy = await silencingProxy(new URL(POSTGRES_TEST_URL), RELEASE_STATEMENT);
    try {
      const proxied = new URL(url);
      proxied.host = `127.0.0.1:${proxy.port}`;
      // The step fails at its close (the table is gone), then the run's close meets a silent server.
      // A generous bound, not a timing. Without the close's bound the run still ends, later, when the
      // driver's own timeouts give up on the silent server; only the line below tells the two apart.
      const { code, stderr } = await runWithBreakingStore(dir, proxied.href, schema, 90_000);
      assert.notEqual(code, "hung", `raes run did not exit after its store went silent:\n${stderr}`);
      assert.notEqual(code, 0);
      assert.match(
        stderr,
        /raes run: the store did not answer within 10 s; the leases not given back expire 60000 ms after their last renewal/,
      );
      // The run's own error is still reported: one participant's, or several under one line.
      assert.match(stderr, /^raes: store\.schema-damaged: /m);
      assert.match(stderr, /is damaged: relation "invocations" does not exist/);
    } finally {
      proxy.close();
    }
    // Nothing was given back: the leases are still held, to expire on their own.
    const held = await adminQuery(
      `SELECT participant_address FROM ${schema}.leases WHERE owner_id IS NOT NULL`,
    );
    assert.ok(held.length > 0, "the silent server never heard the release");
  });
});
