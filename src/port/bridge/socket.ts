import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, renameSync, rmSync, statSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { basename, dirname, join } from "node:path";
import { closedSignal } from "../closing.js";
import { ParticipantToolActionRefusal as Refusal } from "../codes.js";
import type { InvocationToolActionPort } from "../types.js";
import { BridgeLimits, SocketRefusal } from "./limits.js";
import { parseLine, readLines } from "./lines.js";
import { CallsInFlight, callId, helloFor, type RemoteEnd, refusalAnswer, serveRemoteCall } from "./remote.js";

/** A port served on a private Unix socket. */
export interface ServedToolActionPort {
  readonly socketPath: string;
  /** The per-invocation secret every connection must present first. */
  readonly token: string;
  close(): Promise<void>;
}

/** Options of `serveToolActionPort`. */
export interface ServeOptions {
  readonly socketPath: string;
  /**
   * A fixed token instead of a fresh random one, for MCP hosts whose config is written once (a
   * desktop app): serve each invocation on the same path with the same secret. Keep it secret.
   */
  readonly token?: string;
}

/** Shared by a served port's connections: whether it is closing, and the calls still answering. */
interface ClosingState {
  closing: boolean;
  readonly calls: CallsInFlight;
}

const WELL_FORMED_TOKEN = /^[A-Za-z0-9_-]{32,256}$/;

function sameToken(given: unknown, token: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Writes the refusal and closes at once: for peers without the token, nothing more is worth a byte. */
function refuse(socket: Socket, code: SocketRefusal): void {
  if (socket.destroyed) return;
  socket.end(`${JSON.stringify({ error: code })}\n`);
  socket.destroy();
}

/**
 * Writes the refusal, then reads and drops what a token holder still sends until it closes or the
 * linger bound passes. Closing at once would reset a peer still writing, and it could lose the
 * answers and the refusal already sent to it.
 */
function refuseGracefully(socket: Socket, code: SocketRefusal): void {
  if (socket.destroyed || socket.writableEnded) return;
  socket.removeAllListeners("data");
  socket.on("data", () => undefined);
  socket.resume();
  socket.end(`${JSON.stringify({ error: code })}\n`);
  const linger = setTimeout(() => socket.destroy(), BridgeLimits.refusalLingerMs);
  linger.unref();
  socket.once("close", () => clearTimeout(linger));
}

/** One authenticated connection's calls: `line` for each line read, `end` when reading must stop. */
interface CallLoop {
  line(line: string): void;
  end(code: SocketRefusal): void;
}

/**
 * Serves one authenticated connection's calls. At most `maxCallsInFlight` run at once; while more
 * lines wait, or the peer is not reading its answers, the socket is paused, so a fast or silent
 * peer cannot make the server hold unbounded work or unbounded replies. A line that cannot be
 * answered ends the connection, but only after every call before it has been answered.
 */
function callLoop(port: InvocationToolActionPort, socket: Socket, closing: ClosingState): CallLoop {
  let waiting: string[] = [];
  let next = 0;
  let inFlight = 0;
  let ending: SocketRefusal | undefined;
  const pump = () => {
    while (next < waiting.length && inFlight < BridgeLimits.maxCallsInFlight && !socket.destroyed) {
      const message = parseLine(waiting[next++] as string);
      if (callId(message) === undefined) {
        // The first bad line names the reason; nothing after it is served.
        ending = SocketRefusal.frame_invalid;
        waiting = [];
        break;
      }
      inFlight += 1;
      const { id, method } = message as { id: number; method?: unknown };
      // Once the served port closes, the invocation is over for this bridge: answer as a closed port.
      const served = closing.closing
        ? Promise.resolve({ id, result: refusalAnswer(method, Refusal.invocation_closed) })
        : serveRemoteCall(port, message);
      const written = served
        .then((reply) => {
          if (reply && !socket.destroyed && !socket.writableEnded) socket.write(`${JSON.stringify(reply)}\n`);
        })
        // serveRemoteCall never rejects; this guards the reply's own write, so nothing escapes.
        .catch(() => socket.destroy())
        .finally(() => {
          inFlight -= 1;
          pump();
        });
      closing.calls.track(written);
    }
    if (next >= waiting.length) {
      waiting = [];
      next = 0;
    }
    if (socket.destroyed || socket.writableEnded) return;
    if (ending !== undefined) {
      socket.pause();
      if (waiting.length === 0 && inFlight === 0) refuseGracefully(socket, ending);
    } else if (waiting.length > 0 || socket.writableNeedDrain) socket.pause();
    else socket.resume();
  };
  socket.on("drain", pump);
  return {
    line: (line) => {
      if (ending !== undefined) return;
      waiting.push(line);
      pump();
    },
    end: (code) => {
      ending ??= code;
      pump();
    },
  };
}

/** Accepts connections: authentication deadline, pre-auth bound, and caps on both kinds of connection. */
function acceptConnections(
  port: InvocationToolActionPort,
  token: string,
  closing: ClosingState,
): { server: Server; sockets: Set<Socket>; authenticated: Set<Socket> } {
  // Insertion order is age order: the first pending socket is the oldest.
  const pending = new Set<Socket>();
  const authenticated = new Set<Socket>();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    if (closing.closing) return void socket.destroy();
    sockets.add(socket);
    socket.on("error", () => socket.destroy());
    const oldest =
      pending.size >= BridgeLimits.maxPendingConnections ? pending.values().next().value : undefined;
    // Evicting the oldest, not refusing the newest, lets a token holder in while others idle.
    if (oldest) {
      pending.delete(oldest);
      refuse(oldest, SocketRefusal.too_many_connections);
    }
    pending.add(socket);
    const deadline = setTimeout(
      // Gracefully: a peer still trickling bytes would otherwise be reset and could lose the refusal.
      () => refuseGracefully(socket, SocketRefusal.auth_timeout),
      BridgeLimits.authDeadlineMs,
    );
    deadline.unref();
    socket.on("close", () => {
      clearTimeout(deadline);
      pending.delete(socket);
      authenticated.delete(socket);
      sockets.delete(socket);
    });
    let serve: CallLoop | undefined;
    const onLine = (line: string) => {
      if (serve) return serve.line(line);
      const message = parseLine(line) as { token?: unknown } | null | undefined;
      if (!sameToken(message?.token, token)) return refuse(socket, SocketRefusal.unauthorized);
      if (authenticated.size >= BridgeLimits.maxAuthenticatedConnections)
        return refuse(socket, SocketRefusal.too_many_connections);
      clearTimeout(deadline);
      pending.delete(socket);
      authenticated.add(socket);
      serve = callLoop(port, socket, closing);
      socket.write(`${JSON.stringify(helloFor(port))}\n`);
    };
    readLines(
      socket,
      () => (serve ? BridgeLimits.maxFrameBytes : BridgeLimits.maxPreAuthBytes),
      onLine,
      () =>
        serve ? serve.end(SocketRefusal.frame_too_large) : refuse(socket, SocketRefusal.frame_too_large),
    );
  });
  return { server, sockets, authenticated };
}

/** Serves the port on a Unix socket (mode 0600); every connection must present the random token. */
export async function serveToolActionPort(
  port: InvocationToolActionPort,
  options: ServeOptions,
): Promise<ServedToolActionPort> {
  if (options.token !== undefined && !WELL_FORMED_TOKEN.test(options.token))
    throw new TypeError("a fixed port token must be 32 to 256 characters from [A-Za-z0-9_-]");
  const token = options.token ?? randomBytes(32).toString("hex");
  const closing: ClosingState = { closing: false, calls: new CallsInFlight() };
  const { server, sockets, authenticated } = acceptConnections(port, token, closing);
  // Closing a server unlinks the path it was bound to, whatever file is there by then: bound to a
  // name of its own and renamed onto the path, a server's close can never take the file of the next
  // server on the path (a harness serving its next invocation there while this one still closes).
  const bound = boundPath(options.socketPath);
  if (bound === options.socketPath) rmSync(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // The socket file is created by the synchronous bind inside listen(): a tight umask makes it
    // 0600 from its first moment, not only after the chmod below.
    const previous = process.umask(0o177);
    try {
      server.listen(bound, () => resolve());
    } finally {
      process.umask(previous);
    }
  });
  // Once listening, an accept error (out of file descriptors, say) must not become an uncaught
  // exception: the server keeps serving the connections it has, and accepts again when it can.
  server.on("error", () => undefined);
  chmodSync(bound, 0o600);
  const served = statSync(bound).ino;
  if (bound !== options.socketPath) {
    try {
      renameSync(bound, options.socketPath);
    } catch (error) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw error;
    }
  }
  server.unref();
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      // Lines a peer wrote before the close are read first: a gateway writes an outcome just
      // before it answers its client, so an agent that exits on that answer must not get the port
      // closed ahead of a line already in the socket. Two turns hold one full I/O poll.
      for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      // Calls already read are answered first; then each peer is told the invocation closed, so
      // its later calls answer invocation_closed instead of failing as a lost connection.
      closing.closing = true;
      await closing.calls.settled();
      const end = `${JSON.stringify({ closed: Refusal.invocation_closed } satisfies RemoteEnd)}\n`;
      for (const socket of sockets) {
        if (authenticated.has(socket) && !socket.destroyed) socket.end(end, () => socket.destroy());
        else socket.destroy();
      }
      // A peer that never reads must not hold the close.
      setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, 1_000).unref();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // Only this server's file: a harness may already serve its next invocation on the same path.
      if (statSync(options.socketPath, { throwIfNoEntry: false })?.ino === served)
        rmSync(options.socketPath, { force: true });
    })();
    return closed;
  };
  // The invocation closed (its offer's timeout, say) while the harness still serves its port: the
  // peers are told now, so a gateway answers its calls in flight at once, not at its tool timeout.
  // Closed before it was served (while it started listening): no abort event is left to come.
  const portClosed = closedSignal(port);
  if (portClosed?.aborted) void close();
  else portClosed?.addEventListener("abort", () => void close(), { once: true });
  return { socketPath: options.socketPath, token, close };
}

/** Unix socket paths longer than this many bytes are cut short by the OS (macOS: 104 with the NUL). */
const MAX_SOCKET_PATH_BYTES = 103;

/**
 * Where the server binds before its file is renamed onto `socketPath`: a fresh name beside it, or
 * `socketPath` itself when that name would be too long for a socket (a close of such a server may then
 * unlink a later server's file on the path, as any Node server's close unlinks its bound path).
 */
function boundPath(socketPath: string): string {
  const fresh = join(dirname(socketPath), `.${basename(socketPath)}.${randomBytes(4).toString("hex")}`);
  return Buffer.byteLength(fresh) <= MAX_SOCKET_PATH_BYTES ? fresh : socketPath;
}
