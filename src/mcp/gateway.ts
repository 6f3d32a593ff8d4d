import type { Readable, Writable } from "node:stream";
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { InvocationToolActionPort } from "../port/index.js";
import type { CallStages } from "./call-stages.js";
import { type GatewayLog, GovernedCalls } from "./governed-calls.js";
import { governedServer } from "./governed-server.js";
import type { ToolMap } from "./map.js";
import { requiredPort, type SessionCalls, type SessionCallsFactory } from "./session-calls.js";
import { newSessionId } from "./tool-call-id.js";
import { Upstream, type UpstreamCommand, type UpstreamStartOptions } from "./upstream/index.js";
import { CheckedStdioTransport } from "./wire/index.js";

/** Everything `startGateway` needs. */
export interface GatewayOptions {
  /** The invocation's port; or, instead, `sessionCalls`. */
  readonly port?: InvocationToolActionPort;
  /** Builds the session's calls (host mode binds the session to an invocation of its own). */
  readonly sessionCalls?: SessionCallsFactory;
  readonly map: ToolMap;
  readonly upstream: UpstreamCommand;
  /** How long a forwarded call may take before its effects count as unknown. */
  readonly timeoutMs: number;
  /** The MCP client's side of stdio; default the process's stdin and stdout. */
  readonly input?: Readable;
  readonly output?: Writable;
  readonly log?: GatewayLog;
  /** The store of the runtime behind the port, when known (host mode): held-call log lines print runnable commands. */
  readonly storeUrl?: string;
  /** Told the stage times of each call that reached the upstream. */
  readonly onStages?: (stages: CallStages) => void;
  /** The port is in this process (host mode): outcomes are recorded after the answers (GovernedCalls). */
  readonly settleAfterAnswer?: boolean;
  /**
   * Aborted while the gateway starts (a signal): the upstream is closed, its process group included,
   * and the start rejects with the signal's reason. A running gateway is stopped with `close`.
   */
  readonly signal?: AbortSignal;
}

/** A running gateway. */
export interface RunningGateway {
  /** Resolves once the gateway has shut down and the upstream is closed. */
  readonly closed: Promise<void>;
  /**
   * Shuts down. `drain` waits for calls in flight to be answered (the client hung up); otherwise they
   * are cut short and reported unknown (a signal).
   */
  close(options?: { readonly drain?: boolean }): Promise<void>;
}

/** Starts the upstream, then serves MCP on stdio, governing every tool call through the port. */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const log = options.log ?? (() => undefined);
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  // Told once the server exists; the upstream starts first, so a broken command serves nothing.
  let listChanged = (): void => undefined;
  const upstream = await Upstream.start(options.upstream, () => listChanged(), startOptions(options));
  // A refused list (too many tools, an invalid answer) leaves no upstream running behind the error.
  const listed = await listOnce(upstream, options.signal);
  const upstreamTools = new Set(listed.map((t) => t.name));
  for (const name of options.map.tools.keys()) {
    if (!upstreamTools.has(name)) log(`the upstream has no tool '${name}'; it stays hidden`);
  }
  const sessionId = newSessionId();
  // Every session's governed calls, so a client that hangs up releases what they hold for approval.
  const made: GovernedCalls[] = [];
  const governed = (port: InvocationToolActionPort) => {
    const calls = new GovernedCalls({
      port,
      map: options.map,
      upstream,
      sessionId,
      timeoutMs: options.timeoutMs,
      log,
      ...(options.onStages ? { onStages: options.onStages } : {}),
      ...(options.settleAfterAnswer === true ? { settleAfterAnswer: true } : {}),
      ...(options.storeUrl === undefined ? {} : { storeUrl: options.storeUrl }),
    });
    made.push(calls);
    return calls;
  };
  const calls: SessionCalls = options.sessionCalls
    ? options.sessionCalls(
        {
          id: sessionId,
          close: (why) => {
            if (why !== undefined && !closing) log(`session ended: ${why}`);
            return close({ drain: true });
          },
        },
        governed,
      )
    : governed(requiredPort(options.port));
  const server = governedServer({ upstream, map: options.map, calls, networkTransport: "pipe" });
  listChanged = () => void server.sendToolListChanged().catch(() => undefined);

  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = (how: { readonly drain?: boolean; readonly hungUp?: boolean } = {}): Promise<void> => {
    // The client left: nobody will read a held call's answer, so it expires rather than wait for a
    // decision (docs/guide/approvals.md). A close from this side (idle, the offer's timeout) waits.
    if (how.hungUp || !how.drain) for (const governedCalls of made) governedCalls.releaseHolds();
    // A close that does not drain (a signal, a broken stream) cuts short a drain already under way
    // (the client hung up first): the calls still waiting on the upstream are answered
    // gateway_shutdown now, and their actions settle indeterminate, instead of the process holding on
    // until their timeout while its host gives up and kills it.
    if (!how.drain && closing) void upstream.close();
    closing ??= (async () => {
      for (const [event, listener] of listeners) input.off(event, listener);
      if (how.drain) await calls.drain();
      await upstream.close();
      await calls.drain();
      await server.close().catch(() => undefined);
      // Stop reading from the client, so an open stdin does not keep the process up.
      input.destroy();
      calls.ended?.();
      resolveClosed();
    })();
    return closing;
  };
  // The client hung up (EOF): answer what is in flight, then go. A broken stream answers nothing.
  const listeners: [string, () => void][] = [
    ["end", () => void close({ drain: true, hungUp: true })],
    ["close", () => void close({ drain: true, hungUp: true })],
    ["error", () => void close()],
  ];
  for (const [event, listener] of listeners) input.once(event, listener);
  // Writing to a client that is gone must end the gateway, never crash it.
  output.on("error", () => void close());
  // The transport closes itself on a message over its size limit; then nothing more is read.
  server.onclose = () => void close({ drain: true, hungUp: true });
  await server.connect(new CheckedStdioTransport(input, output));
  return { closed, close };
}

/** How a gateway starts its upstream: stopped by `signal`, and saying in its log while the upstream is slow to answer. */
export function startOptions(options: {
  readonly signal?: AbortSignal;
  readonly log?: GatewayLog;
}): UpstreamStartOptions {
  const log = options.log;
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(log
      ? {
          waiting: (seconds: number) =>
            log(
              `still waiting for the upstream MCP server to answer initialize (${seconds} s of ${DEFAULT_REQUEST_TIMEOUT_MSEC / 1000} s)`,
            ),
        }
      : {}),
  };
}

/**
 * The upstream's tools at start-up. A refused list (too many tools, an invalid answer) or a signal
 * while waiting for it leaves no upstream running behind the error.
 */
async function listOnce(upstream: Upstream, signal: AbortSignal | undefined) {
  const stop = () => void upstream.close();
  signal?.addEventListener("abort", stop, { once: true });
  try {
    return await upstream.listTools();
  } catch (error) {
    await upstream.close();
    signal?.throwIfAborted();
    throw error;
  } finally {
    signal?.removeEventListener("abort", stop);
  }
}
