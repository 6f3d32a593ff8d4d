import { connect } from "node:net";
import type { MessagePort } from "node:worker_threads";
import { ParticipantToolActionRefusal as Refusal } from "../codes.js";
import type { InvocationToolActionPort } from "../types.js";
import { BridgeLimits } from "./limits.js";
import { parseLine, readLines } from "./lines.js";
import { offeredSteps, type RemoteEnd, type RemoteHello, remotePort } from "./remote.js";
import { connectMessagePort } from "./worker.js";

/** Where a remote port lives: a MessagePort from `exposeToolActionPort`, or a served socket. */
export type ToolActionPortAddress = MessagePort | { readonly socketPath: string; readonly token: string };

function connectSocket(socketPath: string, token: string): Promise<InvocationToolActionPort> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let remote: ReturnType<typeof remotePort> | undefined;
    let refusal = "wrong or missing token";
    socket.on("error", (error) => (remote ? remote.fail(error) : reject(error)));
    socket.on("close", () => {
      const error = new Error("tool-action port connection closed");
      if (remote) remote.fail(error);
      else reject(new Error(`tool-action port refused the connection (${refusal})`));
    });
    socket.on("connect", () => socket.write(`${JSON.stringify({ token })}\n`));
    const onLine = (line: string) => {
      const message = parseLine(line);
      const closed = (message as Partial<RemoteEnd> | null | undefined)?.closed;
      if (remote && closed === Refusal.invocation_closed) return remote.end(closed);
      if (remote) return remote.receive(message);
      const { hello, error } = (message ?? {}) as Partial<RemoteHello> & { error?: unknown };
      if (typeof error === "string") refusal = error;
      if (!hello) return void socket.destroy();
      remote = remotePort(
        hello,
        (call) => socket.write(`${JSON.stringify(call)}\n`),
        (busy) => (busy ? socket.ref() : socket.unref()),
        offeredSteps(message),
      );
      socket.unref();
      resolve(remote.port);
    };
    // Replies are small; a server sending lines past the frame bound is not a port.
    readLines(
      socket,
      () => BridgeLimits.maxFrameBytes,
      onLine,
      () => socket.destroy(),
    );
  });
}

/** Connects to a remote port and returns an object with the same port API. */
export function connectToolActionPort(address: ToolActionPortAddress): Promise<InvocationToolActionPort> {
  if ("socketPath" in address && "token" in address) return connectSocket(address.socketPath, address.token);
  return connectMessagePort(address as MessagePort);
}
