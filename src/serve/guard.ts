import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { ServeRefusal } from "./codes.js";

/** Where the console listens: a host name or address and a port (0 picks a free one). */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** The console's default address: loopback only. */
export const DEFAULT_LISTEN: ListenAddress = { host: "127.0.0.1", port: 7300 };

/** True for names and addresses that only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  return isIP(h) === 4 && h.startsWith("127.");
}

/** True for the wildcard addresses (every interface), where any Host header may arrive. */
function isWildcard(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "0.0.0.0" || h === "::";
}

/** `HOST:PORT` (IPv6 in brackets) or a bare `PORT` on 127.0.0.1; undefined when it is neither. */
export function parseListen(text: string): ListenAddress | undefined {
  if (/^\d{1,5}$/.test(text)) {
    const port = Number(text);
    return port > 65_535 ? undefined : { host: DEFAULT_LISTEN.host, port };
  }
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]/?#@\s]+)):(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const host = match[1] ?? match[2] ?? "";
  const port = Number(match[3]);
  if (host.length === 0 || port > 65_535) return undefined;
  if (match[1] !== undefined && isIP(host) !== 6) return undefined;
  return { host, port };
}

/** The `host:port` a URL names for this address (IPv6 bracketed). */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** A fresh random token: 256 bits, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Why a token from `--token-file` is not usable, or undefined. */
export function tokenProblem(token: string): string | undefined {
  if (token.length < 16 || token.length > 1024) return "a token is 16 to 1024 characters long";
  if (!/^[A-Za-z0-9\-._~]+$/.test(token)) return "a token uses only A-Z a-z 0-9 - . _ ~";
  return undefined;
}

/** Compares in constant time (digests of equal length), so a wrong token teaches nothing by its timing. */
export function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(token).digest();
  return timingSafeEqual(a, b);
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The token a request carries: `X-Raes-Token`, else `Authorization: Bearer`, else (reads only) the
 * `token` query parameter a printed URL carries.
 */
export function requestToken(request: IncomingMessage, url: URL, allowQuery: boolean): string | undefined {
  const direct = header(request, "x-raes-token");
  if (direct !== undefined) return direct;
  const bearer = /^Bearer ([^\s]+)$/.exec(header(request, "authorization") ?? "");
  if (bearer) return bearer[1];
  return allowQuery ? (url.searchParams.get("token") ?? undefined) : undefined;
}

/**
 * The request checks every route shares. `hosts` are the Host header values the console answers to
 * (empty: any, on a wildcard bind that has a token).
 */
export class RequestGuard {
  readonly #token: string;
  readonly #hosts: ReadonlySet<string>;

  constructor(token: string, listen: ListenAddress, port: number) {
    this.#token = token;
    const names = isLoopback(listen.host)
      ? ["127.0.0.1", "localhost", "[::1]", listen.host]
      : isWildcard(listen.host)
        ? []
        : [listen.host];
    this.#hosts = new Set(names.map((name) => hostPort(name.replace(/^\[|\]$/g, ""), port).toLowerCase()));
  }

  /** The Host header names this console (DNS rebinding: another name resolving here is refused). */
  host(request: IncomingMessage): ServeRefusal | undefined {
    if (this.#hosts.size === 0) return undefined;
    const host = (header(request, "host") ?? "").toLowerCase();
    return this.#hosts.has(host) ? undefined : ServeRefusal.host_refused;
  }

  /** The request carries the console's token (a read may carry it in `?token=`). */
  token(request: IncomingMessage, url: URL, read: boolean): ServeRefusal | undefined {
    return sameToken(requestToken(request, url, read), this.#token) ? undefined : ServeRefusal.token_required;
  }

  /**
   * A state change comes from the console's own page: its Origin is `http://` + its Host, and a
   * browser that says where the request came from says `same-origin`. A request with no Origin is
   * refused, so a form or link elsewhere cannot change anything.
   */
  sameOrigin(request: IncomingMessage): ServeRefusal | undefined {
    const origin = header(request, "origin");
    const host = header(request, "host");
    if (origin === undefined || host === undefined || origin.toLowerCase() !== `http://${host.toLowerCase()}`)
      return ServeRefusal.cross_origin;
    const site = header(request, "sec-fetch-site");
    if (site !== undefined && site !== "same-origin") return ServeRefusal.cross_origin;
    return undefined;
  }
}
