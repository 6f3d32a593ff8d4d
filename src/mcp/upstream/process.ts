import { type ChildProcess, spawn } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  JSONRPCResponseSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { valueDepthExceeds } from "../../input/index.js";
import { UpstreamError, UpstreamErrorCode } from "./errors.js";

/** The longest line the upstream may send (the SDK's own stdio limit). */
const MAX_LINE_BYTES = 10 * 1024 * 1024;
/** The deepest message passed on: deeper ones could not be serialised back to the client. */
const MAX_MESSAGE_DEPTH = 256;
/** How long a closing upstream gets after stdin EOF, and again after SIGTERM. */
const GRACE_MS = 2_000;

/** How to start the upstream MCP server. */
export interface UpstreamCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** The upstream's whole environment. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Takes a parsed line before the SDK does; true when it consumed it. `valid` is false for a line the
 * SDK would drop (not a JSON-RPC message, or nested too deep), so its caller can still answer a call.
 */
export type Interceptor = (message: Record<string, unknown>, valid: boolean) => boolean;

/**
 * The SDK client transport to an upstream started in its own process group, so closing it takes down
 * everything it started. Lines are bounded; a line the SDK cannot take is shown to the interceptor first.
 */
/** Every upstream started and not yet closed, each the leader of a process group of its own. */
const RUNNING = new Set<ChildProcess>();

/**
 * SIGKILLs the process group of every upstream not yet closed, at once: for a process about to end
 * without closing them (a second signal), since each runs in a group of its own that no signal sent
 * to this process's group reaches, and one that ignores EOF and SIGTERM would outlive it.
 */
export function killUpstreamGroups(): void {
  for (const child of RUNNING) signalGroup(child, "SIGKILL");
}

export class UpstreamProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #command: UpstreamCommand;
  readonly #intercept: Interceptor;
  #child: ChildProcess | undefined;
  #chunks: Buffer[] = [];
  #size = 0;
  #exited: Promise<void> = Promise.resolve();
  #drained: Promise<void> = Promise.resolve();
  #closed = false;
  #closing: Promise<void> | undefined;
  #refusal: UpstreamError | undefined;

  constructor(command: UpstreamCommand, intercept: Interceptor) {
    this.#command = command;
    this.#intercept = intercept;
  }

  /** Spawns the upstream; resolves once it runs. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.#command.command, [...this.#command.args], {
        env: { ...this.#command.env },
        stdio: ["pipe", "pipe", "inherit"],
        detached: true,
      });
      this.#child = child;
      RUNNING.add(child);
      // "exit", not "close": a grandchild holding stdout must not hide that the upstream itself is gone.
      this.#exited = new Promise((done) => child.once("exit", () => done()));
      this.#drained = new Promise((done) => child.stdout?.once("close", () => done()));
      child.once("error", (error) => {
        reject(error);
        this.#fail(error);
      });
      child.once("spawn", () => resolve());
      child.once("exit", () => void this.close());
      child.stdin?.on("error", (error) => this.#fail(error));
      child.stdout?.on("error", (error) => this.#fail(error));
      child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
    });
  }

  /** Why this transport gave up on the upstream, when it refused what the upstream sent. */
  get refusal(): UpstreamError | undefined {
    return this.#refusal;
  }

  /** Writes one message as a line; rejects once the upstream is gone. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (this.#closed || !stdin || stdin.destroyed) return Promise.reject(new Error("the upstream is closed"));
    const line = `${JSON.stringify(message)}\n`;
    return new Promise((resolve, reject) => {
      stdin.write(line, (error) => (error ? reject(error) : resolve()));
    });
  }

  /**
   * Closes stdin, then SIGTERMs and SIGKILLs the upstream's process group, whatever it started
   * included. Every caller waits for the one close: the SDK starts it unawaited when the handshake
   * fails, and the gateway must not exit before the group is gone, or it is left running.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    const child = this.#child;
    if (child) {
      child.stdin?.end();
      if (!(await settlesWithin(this.#exited, GRACE_MS))) {
        signalGroup(child, "SIGTERM");
        if (!(await settlesWithin(this.#exited, GRACE_MS))) signalGroup(child, "SIGKILL");
      }
      // Anything the upstream left behind in its group goes too; its last lines are still read, then
      // no pipe keeps this process up.
      signalGroup(child, "SIGKILL");
      RUNNING.delete(child);
      await settlesWithin(this.#drained, GRACE_MS);
      child.stdout?.destroy();
      child.stdin?.destroy();
    }
    this.#chunks = [];
    this.onclose?.();
  }

  #fail(error: Error): void {
    this.onerror?.(error);
    void this.close();
  }

  /**
   * Refuses a line longer than the bound: nothing more is buffered or read (the pipe is destroyed, so
   * the upstream cannot keep it busy while it is closed), and the refusal is the reason the handshake
   * or call fails.
   */
  #tooLong(): void {
    this.#refusal = new UpstreamError(
      UpstreamErrorCode.line_too_long,
      `the upstream sent a line longer than ${MAX_LINE_BYTES} bytes; its output was read no further`,
    );
    this.#chunks = [];
    this.#size = 0;
    this.#child?.stdout?.destroy();
    this.#fail(this.#refusal);
  }

  #read(chunk: Buffer): void {
    // After a refusal nothing is kept: data still in flight must not grow the buffer.
    if (this.#refusal !== undefined) return;
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      if (this.#size + newline - start > MAX_LINE_BYTES) {
        this.#tooLong();
        return;
      }
      this.#chunks.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.#chunks, this.#size + newline - start).toString("utf8");
      this.#chunks = [];
      this.#size = 0;
      start = newline + 1;
      this.#line(line);
    }
    if (start < chunk.length) {
      if (this.#size + chunk.length - start > MAX_LINE_BYTES) {
        this.#tooLong();
        return;
      }
      this.#chunks.push(chunk.subarray(start));
      this.#size += chunk.length - start;
    }
  }

  #line(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.onerror?.(new Error("the upstream sent a line that is not JSON"));
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      this.onerror?.(new Error("the upstream sent JSON that is not a message"));
      return;
    }
    const message = value as Record<string, unknown>;
    // Without a method only the union's response members can match (its request and notification
    // members need one), so answers, every call's, are checked against those alone.
    const schema = Object.hasOwn(message, "method") ? JSONRPCMessageSchema : JSONRPCResponseSchema;
    const parsed = valueDepthExceeds(message, MAX_MESSAGE_DEPTH) ? undefined : schema.safeParse(message);
    if (this.#intercept(message, parsed?.success === true)) return;
    if (parsed?.success) this.onmessage?.(parsed.data);
    else this.onerror?.(new Error("the upstream sent a malformed JSON-RPC message"));
  }
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}
