import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, rmSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import type { MessagePort } from "node:worker_threads";
import { portIdentity, type RemoteHello, remotePort, serveRemoteCall } from "./remote.js";
import type { InvocationToolActionPort } from "./types.js";
import { connectMessagePort } from "./worker-bridge.js";

/** The longest line either side of a socket bridge accepts. */
const MAX_LINE_BYTES = 1024 * 1024;

/** A port served on a private Unix socket. */
export interface ServedToolActionPort {
  readonly socketPath: string;
  /** The per-invocation secret every connection must present first. */
  readonly token: string;
  close(): Promise<void>;
}

/** Where a remote port lives: a MessagePort from `exposeToolActionPort`, or a served socket. */
export type ToolActionPortAddress = MessagePort | { readonly socketPath: string; readonly token: string };

function lines(socket: Socket, onLine: (line: string) => void): void {
  let buffer = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    if (buffer.length > MAX_LINE_BYTES && !buffer.includes("\n")) return void socket.destroy();
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.length > 0) onLine(line);
      newline = buffer.indexOf("\n");
    }
  });
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function sameToken(given: unknown, token: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Serves the port on a Unix socket (mode 0600); every connection must present the random token. */
export async function serveToolActionPort(
  port: InvocationToolActionPort,
  options: { readonly socketPath: string },
): Promise<ServedToolActionPort> {
  const token = randomBytes(32).toString("hex");
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let authenticated = false;
    lines(socket, (line) => {
      const message = parseLine(line);
      if (!authenticated) {
        if (!sameToken((message as { token?: unknown } | undefined)?.token, token)) {
          socket.end(`${JSON.stringify({ error: "unauthorized" })}\n`);
          socket.destroy();
          return;
        }
        authenticated = true;
        socket.write(`${JSON.stringify({ hello: portIdentity(port) } satisfies RemoteHello)}\n`);
        return;
      }
      void serveRemoteCall(port, message).then((reply) => {
        if (reply && !socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
      });
    });
  });
  rmSync(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // The socket file is created by the synchronous bind inside listen(): a tight umask makes it
    // 0600 from its first moment, not only after the chmod below.
    const previous = process.umask(0o177);
    try {
      server.listen(options.socketPath, () => resolve());
    } finally {
      process.umask(previous);
    }
  });
  chmodSync(options.socketPath, 0o600);
  server.unref();
  return {
    socketPath: options.socketPath,
    token,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(options.socketPath, { force: true });
    },
  };
}

function connectSocket(socketPath: string, token: string): Promise<InvocationToolActionPort> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let remote: ReturnType<typeof remotePort> | undefined;
    socket.on("error", (error) => (remote ? remote.fail(error) : reject(error)));
    socket.on("close", () => {
      const error = new Error("tool-action port connection closed");
      if (remote) remote.fail(error);
      else reject(new Error("tool-action port refused the connection (wrong or missing token)"));
    });
    socket.on("connect", () => socket.write(`${JSON.stringify({ token })}\n`));
    lines(socket, (line) => {
      const message = parseLine(line);
      if (remote) return remote.receive(message);
      const hello = (message as Partial<RemoteHello> | undefined)?.hello;
      if (!hello) return void socket.destroy();
      remote = remotePort(
        hello,
        (call) => socket.write(`${JSON.stringify(call)}\n`),
        (busy) => (busy ? socket.ref() : socket.unref()),
      );
      socket.unref();
      resolve(remote.port);
    });
  });
}

/** Connects to a remote port and returns an object with the same port API. */
export function connectToolActionPort(address: ToolActionPortAddress): Promise<InvocationToolActionPort> {
  if ("socketPath" in address && "token" in address) return connectSocket(address.socketPath, address.token);
  return connectMessagePort(address as MessagePort);
}
