import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { parseToolMap, startHttpGateway } from "../../src/mcp/index.js";
import { childNodeArgs } from "../helpers/compiled/index.js";
import { ROOT } from "../helpers/example.js";
import { manifestWithLimits } from "../port/support/core.js";
import { oneInvocation } from "../port/support/invocation.js";

const FIXTURES = join(ROOT, "test", "mcp", "fixtures");

describe("withheld calls count against the claim's limits", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-args-limits-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("two rejected calls use up a claim of two tool actions: the third, valid call is refused action_limit_exhausted, and the upstream saw none", async () => {
    const text = readFileSync(join(FIXTURES, "map.yaml"), "utf8").replace(
      "    evidence_refs: [content.participant-observation]\n",
      "    evidence_refs: [content.participant-observation]\n    arguments: {type: object, properties: {text: {maxLength: 3}}}\n",
    );
    const loaded = parseToolMap(text);
    assert.ok(loaded.ok, JSON.stringify(loaded));
    const countFile = join(dir, "count.txt");
    const codes: unknown[] = [];
    await oneInvocation(
      {
        manifest: manifestWithLimits(2, 2),
        body: async (port) => {
          const gateway = await startHttpGateway({
            port,
            map: loaded.map,
            upstream: {
              command: process.execPath,
              args: childNodeArgs(join(FIXTURES, "upstream-server.ts")),
              env: { PATH: process.env.PATH ?? "", UPSTREAM_COUNT_FILE: countFile },
            },
            timeoutMs: 10_000,
            listen: { host: "127.0.0.1", port: 0 },
          });
          const client = new Client({ name: "limits-agent", version: "1.0.0" });
          try {
            await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
            for (const value of ["too long", "also too long", "ok"]) {
              const result = (await client.callTool({
                name: "echo",
                arguments: { text: value },
              })) as CallToolResult;
              codes.push(result._meta?.["raes/code"]);
            }
          } finally {
            await client.close();
            await gateway.close();
          }
        },
      },
      async ({ store, invocationId }) => {
        const actions = await store.listToolActions({ invocationId });
        assert.deepEqual(
          actions.map((a) => [a.settlement, a.withheldReason]),
          [
            ["withheld", "arguments_rejected"],
            ["withheld", "arguments_rejected"],
          ],
        );
      },
    );
    assert.deepEqual(codes, ["arguments_rejected", "arguments_rejected", "action_limit_exhausted"]);
    // The upstream notes each call it gets (and its own exit): no call is there.
    const noted = existsSync(countFile) ? readFileSync(countFile, "utf8").split("\n") : [];
    assert.deepEqual(
      noted.filter((line) => line !== "" && line !== "exit"),
      [],
    );
  });
});
