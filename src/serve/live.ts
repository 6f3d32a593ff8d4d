import type { ServerResponse } from "node:http";

/** How the hub polls and bounds its streams. */
export interface LiveTiming {
  /** Poll the store this often while a page watches (ms): a change reaches the page within about this. */
  readonly pollMs: number;
  /** A comment line this often keeps idle streams open through proxies (ms). */
  readonly heartbeatMs: number;
  /** At most this many open streams. */
  readonly maxStreams: number;
}

/** A stream whose client reads slower than this many buffered bytes is dropped (it reconnects and gets the latest state). */
const MAX_BUFFERED = 4 * 1024 * 1024;

/**
 * Server-sent events for every open console page, from one poll of the store: however many pages
 * watch, the store is read once per tick, and not at all while none does. A page gets the latest
 * state when it connects and each changed state after; a disconnected page leaves nothing behind.
 */
export class LiveHub {
  readonly #read: () => Promise<string>;
  readonly #timing: LiveTiming;
  readonly #streams = new Set<ServerResponse>();
  #latest: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #reading: Promise<string> | undefined;
  #closed = false;

  /** `read` returns the state as JSON text. */
  constructor(read: () => Promise<string>, timing: LiveTiming) {
    this.#read = read;
    this.#timing = timing;
  }

  /** Open streams now. */
  get streams(): number {
    return this.#streams.size;
  }

  /** The state now, read fresh (shared with a read already in flight). */
  current(): Promise<string> {
    this.#reading ??= this.#read()
      .then((text) => {
        this.#publish(text);
        return text;
      })
      .finally(() => {
        this.#reading = undefined;
      });
    return this.#reading;
  }

  /** Starts an event stream on `response`; false (nothing written) when the hub is full or closed. */
  attach(response: ServerResponse): boolean {
    if (this.#closed || this.#streams.size >= this.#timing.maxStreams) return false;
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      connection: "keep-alive",
    });
    response.write("retry: 1000\n\n");
    this.#streams.add(response);
    const drop = () => this.#drop(response);
    response.on("close", drop);
    response.on("error", drop);
    if (this.#latest !== undefined) this.#send(response, this.#latest);
    void this.current().catch(() => undefined);
    this.#schedule();
    return true;
  }

  /** Ends every stream and stops polling. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    for (const stream of this.#streams) stream.end();
    this.#streams.clear();
  }

  #drop(response: ServerResponse): void {
    this.#streams.delete(response);
    if (this.#streams.size === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
  }

  /** The next poll, after the last one finished (never two at once), while a stream is open. */
  #schedule(): void {
    if (this.#closed || this.#timer !== undefined || this.#streams.size === 0) return;
    this.#heartbeat ??= setInterval(() => {
      for (const stream of this.#streams) stream.write(": ping\n\n");
    }, this.#timing.heartbeatMs);
    const timer = setTimeout(() => {
      void this.current()
        .catch((error: unknown) => {
          process.stderr.write(`raes serve: reading the store failed: ${String(error)}\n`);
        })
        .finally(() => {
          // A stream that closed and reopened meanwhile started its own poll: this one ends.
          if (this.#timer !== timer) return;
          this.#timer = undefined;
          this.#schedule();
        });
    }, this.#timing.pollMs);
    this.#timer = timer;
  }

  #publish(text: string): void {
    if (text === this.#latest) return;
    this.#latest = text;
    for (const stream of this.#streams) this.#send(stream, text);
  }

  #send(stream: ServerResponse, text: string): void {
    if (stream.writableLength > MAX_BUFFERED) {
      stream.destroy();
      this.#drop(stream);
      return;
    }
    stream.write(`event: state\ndata: ${text}\n\n`);
  }
}
