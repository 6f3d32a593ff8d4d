import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connectToolActionPort, serveToolActionPort } from "../../../src/index.js";
import { noteRefusal } from "../../../src/port/index.js";
import { oneInvocation } from "../support/invocation.js";

describe("refusal notes: calls refused before the port was asked", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "raes-notes-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("cross the socket bridge and are counted with the invocation; malformed notes and notes after the close count nothing", async () => {
    let remote: Awaited<ReturnType<typeof connectToolActionPort>> | undefined;
    let close: () => Promise<void> = async () => undefined;
    await oneInvocation(
      {
        body: async (port) => {
          const served = await serveToolActionPort(port, { socketPath: join(dir, "notes.sock") });
          close = served.close;
          remote = await connectToolActionPort({ socketPath: served.socketPath, token: served.token });
          await noteRefusal(remote, { code: "tool_not_mapped", toolName: "drop_tables" });
          await noteRefusal(remote, { code: "tool_not_mapped" });
          await noteRefusal(remote, { code: "arguments_invalid", toolName: "x".repeat(10_000) });
          // Not a note: an upper-case or over-long code, a code that is no string, a tool name that is none.
          for (const bad of [
            { code: "NOT A CODE" },
            { code: "a".repeat(65) },
            { code: 7 },
            { code: "tool_not_mapped", toolName: 5 },
          ])
            await noteRefusal(remote, bad as never);
          // The in-process port takes notes too.
          await noteRefusal(port, { code: "tool_not_available", toolName: "echo" });
        },
      },
      async ({ store, invocationId }) => {
        try {
          assert.ok(remote);
          // After the close a note is answered and counts nothing.
          await noteRefusal(remote, { code: "tool_not_mapped" });
          const invocation = await store.getInvocation(invocationId);
          assert.deepEqual(invocation?.refusals, {
            arguments_invalid: 1,
            tool_not_available: 1,
            tool_not_mapped: 2,
          });
        } finally {
          await close();
        }
      },
    );
  });

  it("a port not built by raes-ts is told nothing and the note resolves", async () => {
    await oneInvocation(
      {
        body: async (port) => {
          const wrapped = { ...port };
          await noteRefusal(wrapped, { code: "tool_not_mapped" });
        },
      },
      async ({ store, invocationId }) => {
        assert.equal((await store.getInvocation(invocationId))?.refusals, undefined);
      },
    );
  });
});
