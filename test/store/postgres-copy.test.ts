import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import type { PoolClient } from "pg";
import { CopyIn, CopyRows, copyCell, copyJsonCell } from "../../src/store/postgres/copy.js";

// Strings a history body can hold: COPY's four special characters, JSON's escapes, controls, quotes,
// lone and paired surrogates, and nothing special at all.
const VALUES: readonly unknown[] = [
  "plain",
  "a\\b",
  "line\nbreak\r\ttab",
  "\\n is not a newline",
  'quote " and \\" and \\\\',
  "\u0000\u0001\u001f\u007f",
  "\ud800 lone, \ud83d\ude00 paired",
  { path: "C:\\temp\\new", lines: ["a\nb", "c\td"], nested: { deep: "\\\\server\\share" } },
  [1, 2.5, null, true, "x\\y"],
  "",
];

describe("the COPY cell of a history body", () => {
  it("escapes JSON text exactly as the general cell does", () => {
    for (const value of VALUES) {
      const json = JSON.stringify(value);
      assert.equal(copyJsonCell(json), copyCell(json), json);
    }
  });

  it("returns JSON text without a backslash as it is", () => {
    const json = JSON.stringify({ a: "b", n: [1, 2] });
    assert.equal(copyJsonCell(json), json);
  });

  it("doubles every backslash, so COPY reads the JSON text back", () => {
    assert.equal(copyJsonCell(JSON.stringify("a\\b\n")), '"a\\\\\\\\b\\\\n"');
  });
});

/** A socket that says how much it holds, unsent: `drain` and `close` are emitted by the test. */
class HeldSocket extends EventEmitter {
  writableLength = 0;
}

/**
 * A COPY on a client that submits it at once to a connection whose socket is `socket`, and the
 * driver's query object, through which the test answers as the server would.
 */
function copyOn(socket: HeldSocket) {
  let query: { handleError(error: Error): void } | undefined;
  const connection = {
    stream: socket,
    query: () => undefined,
    sendCopyFromChunk: () => undefined,
    endCopyFrom: () => undefined,
    sendCopyFail: () => undefined,
  };
  const client = {
    query: (q: { submit(c: unknown): void; handleError(error: Error): void }) => {
      query = q;
      q.submit(connection);
    },
  } as unknown as Pick<PoolClient, "query">;
  const copy = new CopyIn(client, "t (a)", new CopyRows());
  return { copy, fail: (error: Error) => query?.handleError(error) };
}

/** Whether `promise` has settled after the microtasks and one turn now queued. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

const MiB = 1 << 20;

describe("a COPY's rows sent ahead of the socket", () => {
  it("go on at once while the socket holds little", async () => {
    const socket = new HeldSocket();
    socket.writableLength = MiB;
    assert.equal(await settledSoon(copyOn(socket).copy.sent()), true);
  });

  it("wait, past 8 MiB held, until the socket drains", async () => {
    const socket = new HeldSocket();
    socket.writableLength = 9 * MiB;
    const sent = copyOn(socket).copy.sent();
    assert.equal(await settledSoon(sent), false);
    socket.writableLength = 0;
    socket.emit("drain");
    assert.equal(await settledSoon(sent), true);
    assert.equal(socket.listenerCount("drain") + socket.listenerCount("close"), 0, "no listener left");
  });

  it("stop waiting when the socket closes or the COPY fails", async () => {
    const closing = new HeldSocket();
    closing.writableLength = 9 * MiB;
    const onClose = copyOn(closing).copy.sent();
    closing.emit("close");
    assert.equal(await settledSoon(onClose), true);

    const refused = new HeldSocket();
    refused.writableLength = 9 * MiB;
    const { copy, fail } = copyOn(refused);
    const onFailure = copy.sent();
    fail(new Error("refused by the server"));
    assert.equal(await settledSoon(onFailure), true);
    assert.equal(refused.listenerCount("drain") + refused.listenerCount("error"), 0, "no listener left");
  });
});
