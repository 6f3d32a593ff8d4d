import type { Socket } from "node:net";

/**
 * Splits a socket's bytes into newline-terminated UTF-8 lines. A line may hold at most `limit()`
 * bytes, read again for every line so the bound can change (after authentication, say); the moment
 * a line outgrows it, before any newline arrives, `onOverflow` is called once and nothing more is read.
 */
export function readLines(
  socket: Socket,
  limit: () => number,
  onLine: (line: string) => void,
  onOverflow: () => void,
): void {
  let parts: Buffer[] = [];
  let held = 0;
  let overflowed = false;
  const overflow = () => {
    overflowed = true;
    parts = [];
    onOverflow();
  };
  socket.on("data", (chunk: Buffer) => {
    if (overflowed || socket.destroyed) return;
    let start = 0;
    // Only the new chunk is searched, so a peer sending a long line costs linear time, not quadratic.
    for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
      if (held + (newline - start) > limit()) return overflow();
      parts.push(chunk.subarray(start, newline));
      const line = Buffer.concat(parts).toString("utf8");
      parts = [];
      held = 0;
      start = newline + 1;
      if (line.length > 0) onLine(line);
      if (socket.destroyed) return;
    }
    const rest = chunk.length - start;
    if (held + rest > limit()) return overflow();
    // A copy, so a few held bytes do not keep a whole 64 KB read buffer alive.
    if (rest > 0) parts.push(Buffer.from(chunk.subarray(start)));
    held += rest;
  });
}

/** Parses one line as JSON; undefined when it is not JSON. */
export function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
