import { MessageChannel, type MessagePort } from "node:worker_threads";
import { closedSignal } from "../closing.js";
import { ParticipantToolActionRefusal as Refusal } from "../codes.js";
import type { InvocationToolActionPort } from "../types.js";
import {
  CallsInFlight,
  helloFor,
  offeredSteps,
  type RemoteEnd,
  type RemoteHello,
  remotePort,
  serveRemoteCall,
} from "./remote.js";

/** Returns a MessagePort to transfer to a worker thread; the worker connects with `connectToolActionPort`. */
export function exposeToolActionPort(port: InvocationToolActionPort): MessagePort {
  const { port1, port2 } = new MessageChannel();
  const calls = new CallsInFlight();
  port1.on("message", (message: unknown) => {
    // serveRemoteCall never rejects; the catch guards the reply itself, so nothing escapes the loop.
    calls.track(
      serveRemoteCall(port, message)
        .then((reply) => {
          if (reply) port1.postMessage(reply);
        })
        .catch(() => undefined),
    );
  });
  // Once the port closes, the worker is told after the calls already received are answered, so a
  // caller waiting on a tool there stops waiting (closedSignal), as over a socket.
  closedSignal(port)?.addEventListener(
    "abort",
    () => {
      void (async () => {
        await calls.settled();
        port1.postMessage({ closed: Refusal.invocation_closed } satisfies RemoteEnd);
      })();
    },
    { once: true },
  );
  // A message this thread cannot deserialize (nested past its stack, say) names no call to answer.
  port1.on("messageerror", () => undefined);
  port1.unref();
  port1.postMessage(helloFor(port));
  return port2;
}

/** The worker side of `exposeToolActionPort`: the same port API over the MessagePort. */
export function connectMessagePort(messagePort: MessagePort): Promise<InvocationToolActionPort> {
  return new Promise((resolve) => {
    let remote: ReturnType<typeof remotePort> | undefined;
    messagePort.on("message", (message: unknown) => {
      const closed = (message as Partial<RemoteEnd> | null | undefined)?.closed;
      if (remote && closed === Refusal.invocation_closed) return remote.end(closed);
      if (remote) return remote.receive(message);
      const hello = (message as Partial<RemoteHello> | null)?.hello;
      if (!hello) return;
      remote = remotePort(
        hello,
        (call) => messagePort.postMessage(call),
        (busy) => (busy ? messagePort.ref() : messagePort.unref()),
        offeredSteps(message),
      );
      messagePort.unref();
      resolve(remote.port);
    });
  });
}
