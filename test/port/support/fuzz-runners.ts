import assert from "node:assert/strict";
import type { MessagePort } from "node:worker_threads";
import {
  exposeToolActionPort,
  type InvocationToolActionPort,
  type ServedToolActionPort,
} from "../../../src/port/index.js";
import { expectedId, OwedAnswers } from "./fuzz-answers.js";
import { fateOf, type WireFrame } from "./fuzz-frames.js";
import type { BridgeMessage } from "./fuzz-messages.js";
import { RawSession } from "./raw-socket.js";

/** What a fuzz run did, for its closing figures. */
export class FuzzTally {
  inputs = 0;
  connections = 0;
  /** Messages the sending side could not serialize (nested past its own stack), so never sent. */
  undeliverable = 0;
  readonly families = new Map<string, number>();
  readonly outcomes = new Map<string, number>();

  count(map: Map<string, number>, key: string, n = 1): void {
    map.set(key, (map.get(key) ?? 0) + n);
  }

  absorb(owed: OwedAnswers): void {
    for (const [code, n] of owed.codes) this.count(this.outcomes, code, n);
  }

  summary(): string {
    const list = (m: Map<string, number>) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k}=${n}`)
        .join(", ");
    return `inputs ${this.inputs}; connections ${this.connections}; undeliverable ${this.undeliverable}; families: ${list(this.families)}; outcomes: ${list(this.outcomes)}`;
  }
}

const NEWLINE = Buffer.from("\n");

/** Sends one connection's frames in a single write; reads every answer owed, then the refusal, if any. */
async function exchange(
  served: ServedToolActionPort,
  frames: readonly Buffer[],
  owed: OwedAnswers,
  refusal: string | undefined,
  tally: FuzzTally,
): Promise<void> {
  const session = await RawSession.open(served.socketPath, served.token);
  tally.connections += 1;
  try {
    session.send(Buffer.concat(frames.flatMap((f) => [f, NEWLINE])));
    while (owed.remaining > 0) {
      const read = await session.read();
      if (!("line" in read)) assert.fail(`the server closed with ${owed.remaining} answers still owed`);
      const problem = owed.settle(read.line);
      if (problem) assert.fail(problem);
    }
    tally.absorb(owed);
    if (refusal === undefined) return;
    assert.deepEqual(await session.read(), { line: { error: refusal } });
    assert.deepEqual(await session.read(), { closed: true });
    tally.count(tally.outcomes, `connection ${refusal}`);
  } finally {
    session.close();
  }
}

/**
 * Sends a batch of frames over as few authenticated connections as the protocol allows: answered
 * frames share a connection, and each refused frame ends one, after everything before it is answered.
 */
export async function socketBatch(
  served: ServedToolActionPort,
  frames: readonly WireFrame[],
  tally: FuzzTally,
): Promise<void> {
  let pending: Buffer[] = [];
  let owed = new OwedAnswers();
  for (const frame of frames) {
    tally.inputs += 1;
    tally.count(tally.families, frame.family);
    pending.push(frame.bytes);
    const fate = fateOf(frame.bytes);
    if ("answer" in fate) {
      owed.owe(fate.answer.id, fate.answer.method);
      continue;
    }
    await exchange(served, pending, owed, fate.refusal, tally);
    pending = [];
    owed = new OwedAnswers();
  }
  if (pending.length > 0) await exchange(served, pending, owed, undefined, tally);
}

/** The replies arriving on the test's end of an exposed port, read one at a time. */
export class ReplyQueue {
  readonly #replies: unknown[] = [];
  readonly #waiters: Array<(reply: unknown) => void> = [];

  constructor(peer: MessagePort) {
    peer.on("message", (message: unknown) => {
      if (typeof message === "object" && message !== null && "hello" in message) return;
      const waiter = this.#waiters.shift();
      if (waiter) waiter(message);
      else this.#replies.push(message);
    });
  }

  next(): Promise<unknown> {
    if (this.#replies.length > 0) return Promise.resolve(this.#replies.shift());
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/**
 * Posts a batch of messages to a freshly exposed port and reads every answer owed; then a last
 * call's answer must come next, so no answer was given that was not owed.
 */
export async function workerBatch(
  port: InvocationToolActionPort,
  messages: readonly BridgeMessage[],
  tally: FuzzTally,
): Promise<void> {
  const peer = exposeToolActionPort(port);
  const replies = new ReplyQueue(peer);
  tally.connections += 1;
  try {
    const owed = new OwedAnswers();
    for (const message of messages) {
      tally.inputs += 1;
      tally.count(tally.families, message.family);
      // What the bridge receives is the structured clone, so the rule is applied to a clone. One
      // this thread cannot clone (nested past its stack) is one it cannot send either.
      let seen: unknown;
      try {
        seen = structuredClone(message.value);
        peer.postMessage(message.value);
      } catch {
        tally.undeliverable += 1;
        continue;
      }
      const id = expectedId(seen);
      if (id !== undefined) owed.owe(id, (seen as { method?: unknown }).method);
    }
    while (owed.remaining > 0) {
      const problem = owed.settle(await replies.next());
      if (problem) assert.fail(problem);
    }
    tally.absorb(owed);
    peer.postMessage({ id: -1, method: "cancel", args: ["nothing"] });
    const last = await replies.next();
    if (expectedId(last) !== -1) assert.fail(`an answer nobody asked for: ${JSON.stringify(last)}`);
  } finally {
    peer.close();
  }
}
