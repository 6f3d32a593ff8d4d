import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { childNodeArgs } from "./compiled/index.js";
import { ROOT } from "./example.js";

/** Generous bound for a child to reach a marker on a busy two-core machine; never a timing claim. */
export const MARKER_WAIT_MS = 90_000;

/** How a child ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * A real child process running a TypeScript script under tsx, whose stdout is read line by line
 * (children announce what they reached on stdout) and whose stdin takes commands.
 */
export class ChildScript {
  readonly process: ChildProcess;
  readonly lines: string[] = [];
  readonly exited: Promise<ChildExit>;
  #stderr = "";
  #partial = "";
  #exit: ChildExit | undefined;
  readonly #waiters = new Set<() => void>();

  private constructor(child: ChildProcess) {
    this.process = child;
    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => this.#onData(chunk));
    child.stderr?.on("data", (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-8_000);
      this.#wake();
    });
    // "close" comes after the last stdout chunk, so no announced line is missed.
    this.exited = once(child, "close").then(([code, signal]) => {
      this.#exit = { code: code as number | null, signal: signal as NodeJS.Signals | null };
      this.#wake();
      return this.#exit;
    });
  }

  /** Starts the TypeScript `script` with `args` in the repository root: its build under plain node when it has one, else under tsx. */
  static start(
    script: string,
    args: readonly string[],
    env: Readonly<Record<string, string>> = {},
  ): ChildScript {
    const child = spawn(process.execPath, childNodeArgs(script, args), {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "", ...env },
    });
    return new ChildScript(child);
  }

  /** The pid, for signals. */
  get pid(): number {
    const pid = this.process.pid;
    if (pid === undefined) throw new Error("child has no pid");
    return pid;
  }

  /** The last stderr output, for failure messages. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Resolves with the first line at or after index `from` that matches; rejects if the child ends first. */
  async waitFor(
    match: (line: string, index: number) => boolean,
    from = 0,
    what = "a marker",
  ): Promise<{ line: string; index: number }> {
    const deadline = Date.now() + MARKER_WAIT_MS;
    for (;;) {
      for (let i = from; i < this.lines.length; i += 1) {
        const line = this.lines[i] ?? "";
        if (match(line, i)) return { line, index: i };
      }
      if (this.#exit)
        throw new Error(`child ended (${JSON.stringify(this.#exit)}) before ${what}${this.#context()}`);
      if (Date.now() > deadline) throw new Error(`no ${what} within ${MARKER_WAIT_MS} ms${this.#context()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        this.#waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until stderr contains `text` (for programs that report progress there). */
  async waitForStderr(text: string): Promise<void> {
    const deadline = Date.now() + MARKER_WAIT_MS;
    while (!this.#stderr.includes(text)) {
      if (this.#exit)
        throw new Error(`child ended before ${JSON.stringify(text)} on stderr${this.#context()}`);
      if (Date.now() > deadline) throw new Error(`no ${JSON.stringify(text)} on stderr${this.#context()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        this.#waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for a line starting with `prefix`. */
  waitForPrefix(prefix: string, from = 0): Promise<{ line: string; index: number }> {
    return this.waitFor((line) => line.startsWith(prefix), from, JSON.stringify(prefix));
  }

  /** Sends one command line on stdin. */
  send(line: string): void {
    this.process.stdin?.write(`${line}\n`);
  }

  /** Sends a signal and, for SIGKILL, waits until the process is gone. */
  async signal(signal: NodeJS.Signals): Promise<void> {
    process.kill(this.pid, signal);
    if (signal === "SIGKILL") await this.exited;
  }

  /** Kills the child with SIGKILL if it is still running. */
  async stop(): Promise<void> {
    if (!this.#exit) await this.signal("SIGKILL").catch(() => undefined);
  }

  #onData(chunk: string): void {
    const parts = (this.#partial + chunk).split("\n");
    this.#partial = parts.pop() ?? "";
    this.lines.push(...parts);
    this.#wake();
  }

  #wake(): void {
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  #context(): string {
    return `\n--- stdout ---\n${this.lines.slice(-40).join("\n")}\n--- stderr ---\n${this.#stderr}`;
  }
}
