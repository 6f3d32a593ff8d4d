import { type ChildProcess, spawn } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * A stdio client transport that ends a session the way a host does, by closing the child's stdin,
 * and then waits for the child to exit on its own: no SIGTERM or SIGKILL after a grace period, which
 * on a loaded machine could cut the gateway off while it commits the invocation.
 */
export class ChildStdioTransport implements Transport {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly #buffer = new ReadBuffer();
  /** What the child wrote on stderr, when asked to keep it. */
  stderr = "";
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(
    command: string,
    args: readonly string[],
    env: NodeJS.ProcessEnv,
    cwd?: string,
    options: { readonly keepStderr?: boolean } = {},
  ) {
    this.child = spawn(command, [...args], {
      env,
      stdio: ["pipe", "pipe", options.keepStderr === true ? "pipe" : "ignore"],
      ...(cwd ? { cwd } : {}),
    });
    this.child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
    void this.exited.then(() => this.onclose?.());
  }

  async start(): Promise<void> {
    this.child.stdout?.on("data", (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let message = this.#buffer.readMessage(); message; message = this.#buffer.readMessage())
        this.onmessage?.(message);
    });
    this.child.stdin?.on("error", (error) => this.onerror?.(error));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.child.stdin?.write(serializeMessage(message));
  }

  /** Hangs up (closes stdin) and waits for the child to exit. */
  async close(): Promise<void> {
    this.child.stdin?.end();
    await this.exited;
  }
}
