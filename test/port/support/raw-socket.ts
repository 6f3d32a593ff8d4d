import { connect, type Socket } from "node:net";

/** What a raw session reads next: one parsed line, or the end of the connection. */
export type RawRead = { readonly line: unknown } | { readonly closed: true };

/**
 * A byte-level client of a served port, for sending what `connectToolActionPort` never would:
 * it writes whatever it is given and reads the server's lines one at a time.
 */
export class RawSession {
  readonly socket: Socket;
  readonly #lines: RawRead[] = [];
  readonly #waiters: Array<(read: RawRead) => void> = [];
  #buffer = "";
  #closed = false;
  /** Resolves when the server (or the session) has closed the connection. */
  readonly closed: Promise<void>;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.#buffer += chunk;
      let newline = this.#buffer.indexOf("\n");
      while (newline >= 0) {
        this.#push({ line: JSON.parse(this.#buffer.slice(0, newline)) as unknown });
        this.#buffer = this.#buffer.slice(newline + 1);
        newline = this.#buffer.indexOf("\n");
      }
    });
    // A reset from a server that dropped us is one of the designed answers, not a test error.
    socket.on("error", () => undefined);
    this.closed = new Promise((resolve) =>
      socket.on("close", () => {
        this.#closed = true;
        while (this.#waiters.length > 0) this.#waiters.shift()?.({ closed: true });
        resolve();
      }),
    );
  }

  /** Connects; with a token, also authenticates and waits for the hello. */
  static async open(socketPath: string, token?: string): Promise<RawSession> {
    const socket = connect(socketPath);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const session = new RawSession(socket);
    if (token === undefined) return session;
    session.send(`${JSON.stringify({ token })}\n`);
    const hello = await session.read();
    if (!("line" in hello) || typeof (hello.line as { hello?: unknown }).hello !== "object")
      throw new Error(`no hello after the token: ${JSON.stringify(hello)}`);
    return session;
  }

  #push(read: RawRead): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter(read);
    else this.#lines.push(read);
  }

  /** Writes raw text or bytes as they are. */
  send(data: string | Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  /** The next line from the server, or `closed` once it has closed the connection. */
  read(): Promise<RawRead> {
    const line = this.#lines.shift();
    if (line) return Promise.resolve(line);
    if (this.#closed) return Promise.resolve({ closed: true });
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * Collects every unhandled rejection and uncaught exception while installed; a bridge that lets a
 * frame's failure escape is caught here instead of killing the test process.
 */
export function watchProcessFaults(): { readonly faults: unknown[]; stop(): void } {
  const faults: unknown[] = [];
  const record = (fault: unknown) => faults.push(fault);
  process.on("unhandledRejection", record);
  process.on("uncaughtException", record);
  return {
    faults,
    stop: () => {
      process.off("unhandledRejection", record);
      process.off("uncaughtException", record);
    },
  };
}
