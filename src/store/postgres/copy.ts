import type { PoolClient } from "pg";

/** The connection's socket, as far as waiting for it to take in what was sent. */
interface CopySocket {
  /** Bytes written to the socket and not yet handed to the operating system. */
  readonly writableLength: number;
  once(event: "drain" | "close" | "error", listener: () => void): unknown;
  removeListener(event: "drain" | "close" | "error", listener: () => void): unknown;
}

/** The part of the driver's connection a COPY FROM STDIN writes through. */
interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
  /** The driver's socket (a TLS one over SSL). */
  readonly stream?: CopySocket;
}

/** COPY's text format of a cell: backslash, newline, carriage return and tab escaped. */
const COPY_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};
const NEEDS_ESCAPING = /[\\\n\r\t]/;
const ESCAPED = /[\\\n\r\t]/g;

/** One cell of a COPY text line; a string holding nothing COPY escapes is its own cell. */
export function copyCell(value: string): string {
  return NEEDS_ESCAPING.test(value) ? value.replace(ESCAPED, (c) => COPY_ESCAPES[c] ?? c) : value;
}

/**
 * One COPY text cell of JSON text, as `copyCell` writes it but without its scan for the other three
 * characters: JSON.stringify escapes every newline, carriage return and tab inside a string and writes
 * none outside one, so only the backslashes need doubling. Only for `JSON.stringify` text written
 * without a `space` argument, which would put raw newlines between members.
 *
 * @example
 * copyJsonCell(JSON.stringify({ path: "a\\b\n" })); // {"path":"a\\\\b\\n"}
 */
export function copyJsonCell(json: string): string {
  return json.includes("\\") ? json.replaceAll("\\", "\\\\") : json;
}

/** The driver's query object that runs a COPY: the methods its connection calls as the server answers. */
interface CopyQuery {
  readonly text: string;
  callback: () => void;
  submit(connection: CopyConnection): void;
  handleCopyInResponse(): void;
  handleCommandComplete(message: { text?: string }): void;
  handleReadyForQuery(): void;
  handleError(error: Error): void;
  handleRowDescription(): void;
  handleDataRow(): void;
  handleEmptyQuery(): void;
  handlePortalSuspended(): void;
  handleCopyData(): void;
}

/** Rows are sent in chunks of about this many characters: few protocol messages, none too large. */
const CHUNK = 1 << 20;
/**
 * Bytes the socket may hold, sent and not yet taken by the operating system, before `CopyIn.sent`
 * waits for it: a COPY's rows are linked faster than a server takes them in, and without this bound
 * every chunk of a large COPY would be held at once.
 */
const SENT_AHEAD = 8 << 20;

/**
 * COPY text rows in chunks, built before or while the COPY they go to runs: a caller may build them
 * while the server runs its earlier statements. Full chunks are encoded as they fill.
 */
export class CopyRows {
  #full: Buffer[] = [];
  #chunk = "";
  #rows = 0;

  /** Adds one row, its cells already in COPY's text form (`copyCell`) and joined by tabs. */
  add(cells: string): void {
    this.#chunk += `${cells}\n`;
    this.#rows += 1;
    if (this.#chunk.length >= CHUNK) {
      this.#full.push(Buffer.from(this.#chunk, "utf8"));
      this.#chunk = "";
    }
  }

  /** How many rows were added. */
  get rows(): number {
    return this.#rows;
  }

  /** About how much is held, added and not taken yet: full chunks in bytes, the partial one in characters. */
  get buffered(): number {
    return this.#full.reduce((sum, chunk) => sum + chunk.length, this.#chunk.length);
  }

  /** Removes and answers the chunks filled so far; with `all`, the partial one too. */
  take(all = false): Buffer[] {
    if (all && this.#chunk !== "") {
      this.#full.push(Buffer.from(this.#chunk, "utf8"));
      this.#chunk = "";
    }
    const taken = this.#full;
    this.#full = [];
    return taken;
  }
}

/**
 * One `COPY <target> FROM STDIN` (text format) of a `CopyRows` inside the caller's transaction, its
 * chunks sent as they fill (`send`): the server takes them in while the caller builds the next ones.
 * The driver offers no COPY, so this is a query object it runs in its queue like any statement (its
 * submittable protocol). The data goes out without waiting for the server's CopyInResponse: the
 * server reads its messages in order, and drops copy data that follows a COPY it refused
 * (PostgreSQL's protocol, "COPY Operations"). Nothing else may be queued on the connection until
 * `end` or `fail` settles.
 */
export class CopyIn {
  readonly #done: Promise<number>;
  readonly #rows: CopyRows;
  #connection: CopyConnection | undefined;
  #pending: Buffer[];
  #ended: "end" | "fail" | undefined;
  #failure = "";
  #settled = false;

  /** Queues the COPY; the chunks `rows` has filled go out when the driver submits it. */
  constructor(client: Pick<PoolClient, "query">, target: string, rows: CopyRows) {
    this.#rows = rows;
    this.#pending = rows.take();
    this.#done = new Promise<number>((resolve, reject) => {
      let copied = 0;
      const query: CopyQuery = {
        text: `COPY ${target} FROM STDIN`,
        // The driver wraps this to clear its query timeout (`query_timeout`): it is called once the
        // COPY is over, or its timer would keep the process alive for the whole timeout.
        callback: () => undefined,
        submit: (connection) => {
          connection.query(query.text);
          this.#connection = connection;
          this.#flush();
        },
        handleCopyInResponse: () => undefined,
        handleCommandComplete: (message) => {
          copied = Number(/^COPY (\d+)/.exec(message.text ?? "")?.[1] ?? 0);
        },
        handleReadyForQuery: () => {
          this.#over();
          query.callback();
          resolve(copied);
        },
        handleError: (error) => {
          this.#over();
          query.callback();
          reject(error);
        },
        handleRowDescription: () => undefined,
        handleDataRow: () => undefined,
        handleEmptyQuery: () => undefined,
        handlePortalSuspended: () => undefined,
        handleCopyData: () => undefined,
      };
      // The driver's typings know only its own query shapes; it runs any object with `submit`.
      (client.query as unknown as (q: CopyQuery) => void)(query);
    });
    // Settled through `end` or `fail`; never an unheard rejection before then.
    this.#done.catch(() => undefined);
  }

  /**
   * Whether the COPY is over: refused by the server, ended by the connection or the driver's timeout,
   * or done. Nothing more is sent then; `end` answers how it ended.
   */
  get settled(): boolean {
    return this.#settled;
  }

  /** Sends the chunks the rows filled since (once the driver has submitted the COPY). */
  send(): void {
    this.#pending.push(...this.#rows.take());
    this.#flush();
  }

  /**
   * Resolves once the socket holds less than `SENT_AHEAD` bytes not yet taken by the operating
   * system, or the COPY is over, or the socket closed: a caller that links rows as fast as it can
   * waits here, so a COPY of any size holds about that much in memory, not all its rows.
   */
  sent(): Promise<void> {
    const socket = this.#connection?.stream;
    if (socket === undefined || socket.writableLength < SENT_AHEAD) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        socket.removeListener("drain", done);
        socket.removeListener("close", done);
        socket.removeListener("error", done);
        resolve();
      };
      socket.once("drain", done);
      socket.once("close", done);
      socket.once("error", done);
      this.#done.then(done, done);
    });
  }

  /** Sends the last rows and ends the copy; answers how many rows the server copied. */
  end(): Promise<number> {
    this.#pending.push(...this.#rows.take(true));
    this.#ended = "end";
    this.#flush();
    return this.#done;
  }

  /** Abandons the copy (the server refuses it, and the transaction with it); settles when the COPY is over. */
  fail(reason: string): Promise<void> {
    this.#pending = [];
    this.#ended = "fail";
    this.#failure = reason;
    this.#flush();
    return this.#done.then(
      () => undefined,
      () => undefined,
    );
  }

  #over(): void {
    this.#settled = true;
    this.#pending = [];
    this.#connection = undefined;
  }

  #flush(): void {
    const connection = this.#connection;
    if (connection === undefined) return;
    // Each chunk is let go once the driver has it: a large COPY is not held twice.
    for (let chunk = this.#pending.shift(); chunk !== undefined; chunk = this.#pending.shift()) {
      connection.sendCopyFromChunk(chunk);
    }
    if (this.#ended === "end") connection.endCopyFrom();
    else if (this.#ended === "fail") connection.sendCopyFail(this.#failure);
    if (this.#ended !== undefined) this.#connection = undefined;
  }
}
