import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

/** Where `--http HOST:PORT` asks the gateway to listen. */
export interface HttpAddress {
  readonly host: string;
  readonly port: number;
}

/** The host a bare `PORT` listens on: loopback, so serving other hosts is always asked for by name. */
export const DEFAULT_HTTP_HOST = "127.0.0.1";

/**
 * Parses `HOST:PORT` (`[::1]:PORT` for IPv6), or a bare `PORT` on 127.0.0.1; PORT 0 picks a free
 * one. Undefined when malformed.
 */
export function parseHttpAddress(text: string): HttpAddress | undefined {
  if (/^\d{1,5}$/.test(text)) {
    const port = Number(text);
    return port > 65_535 ? undefined : { host: DEFAULT_HTTP_HOST, port };
  }
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const host = match[1] ?? match[2] ?? "";
  const port = Number(match[3]);
  if (host.length === 0 || port > 65_535) return undefined;
  if (match[1] !== undefined && isIP(host) !== 6) return undefined;
  return { host, port };
}

/** True for names and addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  return isIP(h) === 4 && h.startsWith("127.");
}

/** The hostname of a Host header value (`name:port`, `[v6]:port`), lower-cased. */
function hostOf(header: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  if (bracketed) return (bracketed[1] ?? "").toLowerCase();
  return (header.split(":")[0] ?? "").toLowerCase();
}

/** Why the HTTP gateway turned a request away before MCP saw it; each is the `data.code` of its error body. */
export const HttpRefusalCode = {
  /** The path is not `/mcp`. */
  not_found: "mcp-http.not-found",
  /** On a loopback bind, the Host header names something else (DNS rebinding). */
  host_not_loopback: "mcp-http.host-not-loopback",
  /** The Origin header is `null`, malformed, or not the gateway's own origin (scheme aside, its Host). */
  origin_refused: "mcp-http.origin-refused",
  /** The gateway has a token and the request's `Authorization: Bearer` is missing or wrong. */
  token_required: "mcp-http.token-required",
  /** A GET or DELETE, or a POST that is not `initialize`, came without an `Mcp-Session-Id`. */
  session_required: "mcp-http.session-required",
  /** The `Mcp-Session-Id` names no open session: wrong, deleted, or expired after the idle timeout. */
  session_unknown: "mcp-http.session-unknown",
  /** The client's address (or the whole gateway) has as many sessions open as allowed. */
  session_limit: "mcp-http.session-limit",
  /** The request body is larger than the gateway reads. */
  body_too_large: "mcp-http.body-too-large",
} as const;
/** An HTTP gateway refusal code. */
export type HttpRefusalCode = (typeof HttpRefusalCode)[keyof typeof HttpRefusalCode];

/** Why a request was turned away before it reached MCP. */
export type HttpRefusal = {
  readonly status: 400 | 401 | 403 | 404 | 413 | 503;
  readonly code: HttpRefusalCode;
  readonly message: string;
};

/**
 * Checks one request against the gateway's HTTP rules: only the /mcp path; never `Origin: null` (a
 * sandboxed or local-file page); on a loopback bind a loopback Host, so a web page cannot reach it by DNS
 * rebinding; an Origin (when sent) equal to the gateway's own origin, so no other site's page can; the bearer token when one is configured. The token is
 * compared in constant time and never read from the URL.
 */
export function checkRequest(
  request: IncomingMessage,
  options: { readonly loopbackOnly: boolean; readonly bearer: string | undefined },
): HttpRefusal | undefined {
  const path = (request.url ?? "").split("?")[0];
  if (path !== "/mcp")
    return { status: 404, code: HttpRefusalCode.not_found, message: "not found; MCP is served at /mcp" };
  const origin = request.headers.origin;
  if (origin === "null")
    return { status: 403, code: HttpRefusalCode.origin_refused, message: "Origin null is refused" };
  if (options.loopbackOnly && !isLoopbackHost(hostOf(request.headers.host ?? "")))
    return { status: 403, code: HttpRefusalCode.host_not_loopback, message: "Host is not a loopback name" };
  if (origin !== undefined) {
    // A page may call the gateway only from the gateway's own origin: another local port (a dev
    // server at localhost:3000) is another site, and a browser sends its Origin on every such call.
    let originHost = "";
    try {
      originHost = new URL(origin).host;
    } catch {
      return { status: 403, code: HttpRefusalCode.origin_refused, message: "Origin is malformed" };
    }
    if (originHost !== (request.headers.host ?? "").toLowerCase())
      return {
        status: 403,
        code: HttpRefusalCode.origin_refused,
        message: "Origin is not the gateway's own origin",
      };
  }
  if (options.bearer !== undefined) {
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
    // Digests first: equal lengths for timingSafeEqual, so not even the token's length leaks.
    const a = createHash("sha256").update(given).digest();
    const b = createHash("sha256").update(options.bearer).digest();
    if (!timingSafeEqual(a, b))
      return {
        status: 401,
        code: HttpRefusalCode.token_required,
        message: "a valid bearer token is required",
      };
  }
  return undefined;
}

/** The shortest bearer token the gateway accepts: a guessable one would guard nothing. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Why `token` cannot be the gateway's bearer token, or undefined when it can: 16 to 1024 characters
 * of RFC 6750's token alphabet (`A-Z a-z 0-9 - . _ ~ + /`, then `=` padding).
 */
export function bearerTokenProblem(token: string): string | undefined {
  if (token.length < MIN_TOKEN_LENGTH || token.length > 1024)
    return `a token is ${MIN_TOKEN_LENGTH} to 1024 characters long`;
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token))
    return "a token uses only A-Z a-z 0-9 - . _ ~ + / (and = at its end)";
  return undefined;
}
