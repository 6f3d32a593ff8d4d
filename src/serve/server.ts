import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decisionNote, OperatorError } from "../operations/index.js";
import type { ControlPlaneStore } from "../store/index.js";
import { CONSOLE_ACTIONS } from "./actions.js";
import { ChainWatch, type ChainWatchTiming } from "./chain.js";
import { REFUSAL_STATUS, ServeRefusal } from "./codes.js";
import { FRAME_CSP, MAX_WAITING_RENDERS, TimelineFrames } from "./frames.js";
import { hostPort, type ListenAddress, RequestGuard } from "./guard.js";
import { LiveHub, type LiveTiming } from "./live.js";
import { CONSOLE_CSP, consolePage } from "./page.js";
import { readConsoleState } from "./state.js";

/** What `startConsole` serves, and how. */
export interface ConsoleOptions {
  readonly store: ControlPlaneStore;
  /** The store as the page names it (no password) and as its timelines' printed commands name it. */
  readonly storeUrl: string;
  readonly listen: ListenAddress;
  /** Every request must carry it; state changes in a header, page loads in `?token=` too. */
  readonly token: string;
  /** Who every decision made from this console is recorded as. */
  readonly operator: string;
  /** Polling and stream bounds; the defaults keep the page within about 0.5 s of the store. */
  readonly timing?: Partial<LiveTiming & ChainWatchTiming>;
}

/** A running console. */
export interface ConsoleServer {
  /** `http://HOST:PORT/`, the port resolved when 0 was asked for. */
  readonly url: string;
  readonly port: number;
  /** Resolves once the console stopped. */
  readonly closed: Promise<void>;
  /** Ends every stream, stops polling and listening; the store stays open (its opener closes it). */
  close(): Promise<void>;
  /** Open live streams now (a page that went away leaves none). */
  streams(): number;
}

/** The defaults: poll twice a second while a page watches; recheck chains at most every 2 s, and each minute. */
export const DEFAULT_TIMING: LiveTiming & ChainWatchTiming = {
  pollMs: 500,
  heartbeatMs: 15_000,
  maxStreams: 64,
  minIntervalMs: 2_000,
  recheckMs: 60_000,
};

/** The largest request body read: an action's subject and note. */
const MAX_BODY = 16 * 1024;
/** The longest subject (an id or participant address) an action takes. */
const MAX_SUBJECT = 1024;
/** The longest `v` a timeline frame's URL carries. */
const MAX_VERSION = 512;

const BASE_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "cross-origin-resource-policy": "same-origin",
};

class Refused extends Error {
  readonly code: string;
  readonly status: number;
  readonly detail?: unknown;
  constructor(code: ServeRefusal | string, message: string, status?: number, detail?: unknown) {
    super(message);
    this.code = code;
    this.status = status ?? REFUSAL_STATUS[code as ServeRefusal] ?? 409;
    this.detail = detail;
  }
}

function json(response: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  response.writeHead(status, {
    ...BASE_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
}

function html(response: ServerResponse, csp: string, body: string, framed: boolean): void {
  response.writeHead(200, {
    ...BASE_HEADERS,
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": csp,
    "x-frame-options": framed ? "SAMEORIGIN" : "DENY",
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
}

/** The request's body, at most MAX_BODY bytes (`serve.body-too-large` past it, the rest unread). */
async function readBody(request: IncomingMessage): Promise<string> {
  const declared = Number(request.headers["content-length"] ?? "0");
  if (declared > MAX_BODY)
    throw new Refused(ServeRefusal.body_too_large, `a request body is at most ${MAX_BODY} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY)
      throw new Refused(ServeRefusal.body_too_large, `a request body is at most ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The action a path names; a malformed escape names none. */
function actionOf(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new Refused(ServeRefusal.unknown_action, "the action's name is not a valid path segment");
  }
}

/** An action request's `{subject, note?, generation?}`, checked. */
function actionInput(text: string): { subject: string; note: string; generation?: number } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Refused(ServeRefusal.bad_request, "the body is not JSON");
  }
  const { subject, note, generation } = (value ?? {}) as {
    subject?: unknown;
    note?: unknown;
    generation?: unknown;
  };
  if (typeof subject !== "string" || subject.length === 0 || subject.length > MAX_SUBJECT)
    throw new Refused(ServeRefusal.bad_request, `subject is a string of 1 to ${MAX_SUBJECT} characters`);
  if (note !== undefined && typeof note !== "string")
    throw new Refused(ServeRefusal.bad_request, "note is a string when given");
  if (generation !== undefined && (!Number.isSafeInteger(generation) || (generation as number) < 0))
    throw new Refused(ServeRefusal.bad_request, "generation is a whole number when given");
  try {
    return {
      subject,
      note: decisionNote(note),
      ...(generation === undefined ? {} : { generation: generation as number }),
    };
  } catch (error) {
    if (error instanceof OperatorError) throw new Refused(error.code, error.message, 400);
    throw error;
  }
}

/**
 * Starts the operator console (`raes serve`, docs/guide/console.md) over an open store: the page,
 * its state stream, each participant's timeline and the action endpoints, every request checked for
 * the Host, the token and (state changes) the origin.
 *
 * @example
 * const console = await startConsole({ store, storeUrl, listen: { host: "127.0.0.1", port: 0 }, token, operator: "alice" });
 * // … open `${console.url}?token=${token}` …
 * await console.close();
 */
export async function startConsole(options: ConsoleOptions): Promise<ConsoleServer> {
  const timing = { ...DEFAULT_TIMING, ...options.timing };
  const { store, operator } = options;
  const chains = new ChainWatch(store, timing);
  const frames = new TimelineFrames(store, options.storeUrl);
  const read = async () =>
    JSON.stringify(await readConsoleState(store, { storeLabel: options.storeUrl, operator, chains }));
  const hub = new LiveHub(read, timing);
  let guard: RequestGuard | undefined;

  const routes: Record<
    string,
    (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<void>
  > = {
    "/": async (_request, response) => html(response, CONSOLE_CSP, consolePage(options.token), false),
    "/api/state": async (_request, response) => {
      const text = await hub.current();
      response.writeHead(200, {
        ...BASE_HEADERS,
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(text),
      });
      response.end(text);
    },
    "/api/events": async (_request, response) => {
      if (!hub.attach(response))
        throw new Refused(
          ServeRefusal.too_many_streams,
          `at most ${timing.maxStreams} live streams are open`,
        );
    },
    "/timeline": async (_request, response, url) => {
      const participant = url.searchParams.get("participant");
      const version = url.searchParams.get("v") ?? "";
      if (
        participant === null ||
        participant.length === 0 ||
        participant.length > MAX_SUBJECT ||
        version.length > MAX_VERSION
      )
        throw new Refused(ServeRefusal.bad_request, "give ?participant=ADDRESS");
      const frame = frames.html(participant, version, chains.participant(participant), chains.store());
      if (frame === undefined)
        throw new Refused(
          ServeRefusal.busy,
          `${MAX_WAITING_RENDERS} timelines are being drawn or waiting; ask again in a moment`,
        );
      html(response, FRAME_CSP, await frame, true);
    },
  };

  async function act(request: IncomingMessage, response: ServerResponse, name: string): Promise<void> {
    const action = Object.hasOwn(CONSOLE_ACTIONS, name) ? CONSOLE_ACTIONS[name] : undefined;
    if (action === undefined) throw new Refused(ServeRefusal.unknown_action, `no console action ${name}`);
    if (!/^application\/json(;|$)/i.test(request.headers["content-type"] ?? ""))
      throw new Refused(ServeRefusal.bad_request, "an action's body is application/json");
    const input = actionInput(await readBody(request));
    if (action.run === undefined)
      throw new Refused(ServeRefusal.action_unavailable, `${name} is not available in this build`);
    const outcome = await action.run(
      {
        store,
        operator,
        note: input.note,
        ...(input.generation === undefined ? {} : { generation: input.generation }),
      },
      input.subject,
    );
    if (!outcome.ok) throw new Refused(outcome.code, outcome.message, 409, outcome.detail);
    void hub.current().catch(() => undefined);
    json(response, 200, { action: name, subject: input.subject, operator, answer: outcome.answer });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://console.invalid");
    const checks = guard as RequestGuard;
    const wrongHost = checks.host(request);
    if (wrongHost) throw new Refused(wrongHost, "the Host header does not name this console");
    const actionName = url.pathname.startsWith("/api/actions/")
      ? actionOf(url.pathname.slice("/api/actions/".length))
      : undefined;
    const route = routes[url.pathname];
    if (actionName === undefined && (route === undefined || !Object.hasOwn(routes, url.pathname)))
      throw new Refused(ServeRefusal.not_found, `nothing at ${url.pathname}`);
    const method = actionName === undefined ? "GET" : "POST";
    if (request.method !== method) {
      response.setHeader("allow", method);
      throw new Refused(ServeRefusal.method_not_allowed, `${url.pathname} answers ${method} only`);
    }
    const noToken = checks.token(request, url, method === "GET");
    if (noToken) throw new Refused(noToken, "open the URL raes serve printed: it carries the token");
    if (actionName !== undefined) {
      const crossOrigin = checks.sameOrigin(request);
      if (crossOrigin) throw new Refused(crossOrigin, "a state change must come from the console's own page");
      return act(request, response, actionName);
    }
    await (route as NonNullable<typeof route>)(request, response, url);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!(error instanceof Refused))
        process.stderr.write(
          `raes serve: ${request.method} ${request.url?.split("?")[0]}: ${String(error)}\n`,
        );
      const refusal =
        error instanceof Refused
          ? error
          : new Refused(ServeRefusal.internal, "the store failed; see the console's stderr");
      if (response.headersSent) {
        response.destroy();
        return;
      }
      // An unread body is not drained: the connection closes after the answer.
      response.setHeader("connection", "close");
      json(response, refusal.status, {
        error: {
          code: refusal.code,
          message: refusal.message,
          ...(refusal.detail === undefined ? {} : { detail: refusal.detail }),
        },
      });
    });
  });
  server.requestTimeout = 15_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.listen.port, options.listen.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  guard = new RequestGuard(options.token, options.listen, port);
  let stopped: Promise<void> | undefined;
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  return {
    url: `http://${hostPort(options.listen.host, port)}/`,
    port,
    closed,
    streams: () => hub.streams,
    close() {
      stopped ??= (async () => {
        hub.close();
        chains.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await chains.settled();
        markClosed();
      })();
      return stopped;
    },
  };
}
