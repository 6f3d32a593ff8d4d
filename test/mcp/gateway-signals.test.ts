import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { serveToolActionPort } from "../../src/index.js";
import { manifestWithTimeout } from "../helpers/live-model.js";
import { oneInvocation } from "../port/support/invocation.js";
import { eventually, exitsWithin, hangUpThenTerminate, spawnGateway } from "./fixtures/gateway-process.js";
import { RAW_MAP_TEXT } from "./fixtures/raw-map.js";

/**
 * How long a gateway may take to be gone once it should go: far more than it takes (a few seconds,
 * a stubborn upstream's SIGTERM and SIGKILL included), far less than the 600 s call timeout or the
 * SDK's 60 s initialize bound that kept it up before.
 */
const GONE_WITHIN_MS = 25_000;

describe("raes mcp-gateway --port-socket stops on a signal and never leaves its upstream behind", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-gw-signals-"));
  const map = join(dir, "map.yaml");
  writeFileSync(map, RAW_MAP_TEXT);
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `body` with a gateway on a served port of a real invocation; `check` reads its tool actions. */
  async function withPort(
    name: string,
    env: Readonly<Record<string, string>>,
    body: (gateway: ReturnType<typeof spawnGateway>) => Promise<void>,
    check: (actions: readonly { settlement?: string; unknownReason?: string }[]) => void = () => undefined,
  ): Promise<void> {
    const place = mkdtempSync(join(dir, `${name}-`));
    // What the body threw, kept here: an invocation whose offer timed out would drop it.
    let failed: { error: unknown } | undefined;
    await oneInvocation(
      {
        // Far longer than any of these tests, so the invocation never ends before its gateway.
        manifest: manifestWithTimeout(600),
        body: async (port) => {
          const served = await serveToolActionPort(port, { socketPath: join(place, "port.sock") });
          try {
            const gateway = spawnGateway(
              place,
              ["--port-socket", served.socketPath, "--map", map, "--timeout-ms", "600000"],
              { RAES_PORT_TOKEN: served.token, ...env },
            );
            await body(gateway).catch((error: unknown) => {
              failed = { error };
              gateway.killAll();
            });
          } finally {
            await served.close();
          }
        },
      },
      async ({ store, invocationId }) => {
        if (failed) throw failed.error;
        check(await store.listToolActions({ invocationId }));
      },
    );
  }

  it("SIGTERM after the client hung up cuts a call still waiting on the upstream short: exit 0, the action indeterminate gateway_shutdown", async () => {
    await withPort(
      "eof",
      { RAW_UPSTREAM_STUBBORN: "1" },
      async (gateway) => {
        assert.equal(await hangUpThenTerminate(gateway, GONE_WITHIN_MS), 0);
        assert.match(gateway.stdout(), /"raes\/code":"gateway_shutdown"/);
      },
      (actions) =>
        assert.deepEqual(
          actions.map((a) => [a.settlement, a.unknownReason]),
          [["indeterminate", "gateway_shutdown"]],
        ),
    );
  });

  it("an upstream that fails the handshake and ignores EOF and SIGTERM is gone, its group too, before the gateway exits 1", async () => {
    await withPort(
      "invalid",
      { RAW_UPSTREAM_STUBBORN: "1", RAW_UPSTREAM_INITIALIZE: "invalid" },
      async (gateway) => {
        const pids = await gateway.upstreamPids();
        assert.equal(await exitsWithin(gateway, GONE_WITHIN_MS, pids), 1);
        assert.match(gateway.stderr(), /raes: mcp-upstream\.answer-invalid: /);
      },
    );
  });

  it("a second SIGTERM ends the gateway at once, by that signal, and takes a stubborn upstream's group with it", async () => {
    await withPort(
      "second",
      { RAW_UPSTREAM_STUBBORN: "1", RAW_UPSTREAM_INITIALIZE: "silent" },
      async (gateway) => {
        const pids = await gateway.upstreamPids();
        gateway.child.kill("SIGTERM");
        // The first signal's close is under way: stdin ended, SIGTERM (ignored) not yet escalated.
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(gateway.child.exitCode, null, "still closing after the first signal");
        gateway.child.kill("SIGTERM");
        assert.equal(await exitsWithin(gateway, GONE_WITHIN_MS, pids), null);
        assert.equal(gateway.child.signalCode, "SIGTERM");
      },
    );
  });

  it("says while the upstream has not answered initialize, and a SIGTERM meanwhile ends the upstream's group and exits 0", async () => {
    await withPort(
      "silent",
      { RAW_UPSTREAM_STUBBORN: "1", RAW_UPSTREAM_INITIALIZE: "silent" },
      async (gateway) => {
        const pids = await gateway.upstreamPids();
        const waiting =
          /raes mcp-gateway: still waiting for the upstream MCP server to answer initialize \(\d+ s of 60 s\)/;
        assert.ok(await eventually(() => waiting.test(gateway.stderr()), 40_000), gateway.stderr());
        gateway.child.kill("SIGTERM");
        assert.equal(await exitsWithin(gateway, GONE_WITHIN_MS, pids), 0);
        assert.match(gateway.stderr(), /a signal stopped the gateway before it served/);
        assert.doesNotMatch(gateway.stderr(), /raes: /);
      },
    );
  });
});
