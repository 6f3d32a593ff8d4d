import type { Readable, Writable } from "node:stream";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { checkMessage, parseErrorAnswer, rpcError } from "./check.js";

/** The longest line read, as the SDK's stdio transport bounds its buffer; a longer one ends the transport. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** The answer to a JSON-RPC batch on stdio (id null: a batch has none of its own). */
export const STDIO_BATCH_REFUSED =
  "Invalid Request: stdio takes one message per line; JSON-RPC batches were removed in MCP 2025-06-18";

/**
 * MCP's stdio transport (newline-delimited JSON-RPC) with every line checked before the server sees
 * it: a line that is not JSON, or a request the SDK would drop unanswered (`params: null`, a
 * non-object `_meta`, an object `progressToken`, …), is answered here with a fixed JSON-RPC error.
 * A line over `maxLineBytes` closes the transport, as the SDK's own does.
 */
export class CheckedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #maxLineBytes: number;
  /** The bytes of the line being read, in the chunks they came in. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #closed = false;

  constructor(input: Readable, output: Writable, options: { readonly maxLineBytes?: number } = {}) {
    this.#input = input;
    this.#output = output;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  }

  async start(): Promise<void> {
    this.#input.on("data", this.#onData);
    this.#input.on("error", this.#onError);
  }

  readonly #onError = (error: Error): void => this.onerror?.(error);

  readonly #onData = (data: Buffer | string): void => {
    let chunk = typeof data === "string" ? Buffer.from(data) : data;
    for (let end = chunk.indexOf(10); end !== -1 && !this.#closed; end = chunk.indexOf(10)) {
      const head = chunk.subarray(0, end);
      if (this.#pendingBytes + head.length > this.#maxLineBytes) {
        this.#overflow();
        return;
      }
      const line = this.#pending.length === 0 ? head : Buffer.concat([...this.#pending, head]);
      this.#pending = [];
      this.#pendingBytes = 0;
      chunk = chunk.subarray(end + 1);
      this.#line(line.toString("utf8").replace(/\r$/, ""));
    }
    if (this.#closed || chunk.length === 0) return;
    if (this.#pendingBytes + chunk.length > this.#maxLineBytes) {
      this.#overflow();
      return;
    }
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
  };

  #overflow(): void {
    this.onerror?.(new Error(`a message is longer than ${this.#maxLineBytes} bytes`));
    void this.close();
  }

  #line(text: string): void {
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      void this.send(parseErrorAnswer());
      return;
    }
    // MCP 2025-06-18 removed JSON-RPC batches and the SDK's stdio transport reads none: one is refused
    // whole, naming why (docs/guide/gateway.md). Streamable HTTP still runs them.
    if (Array.isArray(value)) {
      void this.send(rpcError(null, ErrorCode.InvalidRequest, STDIO_BATCH_REFUSED));
      return;
    }
    const checked = checkMessage(value);
    if (checked.kind === "message") this.onmessage?.(checked.message);
    else if (checked.kind === "answer") void this.send(checked.answer);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off("data", this.#onData);
    this.#input.off("error", this.#onError);
    if (this.#input.listenerCount("data") === 0) this.#input.pause();
    this.#pending = [];
    this.#pendingBytes = 0;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#output.write(serializeMessage(message))) resolve();
      else this.#output.once("drain", resolve);
    });
  }
}
