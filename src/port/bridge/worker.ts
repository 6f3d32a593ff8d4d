import { MessageChannel, type MessagePort } from "node:worker_threads";
import type { InvocationToolActionPort } from "../types.js";
import { helloFor, offeredSteps, type RemoteHello, remotePort, serveRemoteCall } from "./remote.js";

/** Returns a MessagePort to transfer to a worker thread; the worker connects with `connectToolActionPort`. */
export function exposeToolActionPort(port: InvocationToolActionPort): MessagePort {
  const { port1, port2 } = new MessageChannel();
  port1.on("message", (message: unknown) => {
    // serveRemoteCall never rejects; the catch guards the reply itself, so nothing escapes the loop.
    serveRemoteCall(port, message)
      .then((reply) => {
        if (reply) port1.postMessage(reply);
      })
      .catch(() => undefined);
  });
  // A message this thread cannot deserialize (nested past its stack, say) names no call to answer.
  port1.on("messageerror", () => undefined);
  port1.unref();
  port1.postMessage(helloFor(port));
  return port2;
}

/** The worker side of `exposeToolActionPort`: the same port API over the MessagePort. */
export function connectMessagePort(messagePort: MessagePort): Promise<InvocationToolActionPort> {
  return new Promise((resolve) => {
    let receive: ((reply: unknown) => void) | undefined;
    messagePort.on("message", (message: unknown) => {
      if (receive) return receive(message);
      const hello = (message as Partial<RemoteHello> | null)?.hello;
      if (!hello) return;
      const remote = remotePort(
        hello,
        (call) => messagePort.postMessage(call),
        (busy) => (busy ? messagePort.ref() : messagePort.unref()),
        offeredSteps(message),
      );
      messagePort.unref();
      receive = remote.receive;
      resolve(remote.port);
    });
  });
}
