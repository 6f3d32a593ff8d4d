import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

/** Where `--http HOST:PORT` asks the gateway to listen. */
export interface HttpAddress {
  readonly host: string;
  readonly port: number;
}

/** Parses `HOST:PORT` (`[::1]:PORT` for IPv6; PORT 0 picks a free one); undefined when malformed. */
export function parseHttpAddress(text: string): HttpAddress | undefined {
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

/** Why a request was turned away before it reached MCP. */
export type HttpRefusal = { readonly status: 403 | 401 | 404; readonly message: string };

/**
 * Checks one request against the gateway's HTTP rules: only the /mcp path; on a loopback bind a
 * loopback Host and (when sent) Origin, so a web page cannot reach it by DNS rebinding; the bearer
 * token when one is configured. The token is compared in constant time and never read from the URL.
 */
export function checkRequest(
  request: IncomingMessage,
  options: { readonly loopbackOnly: boolean; readonly bearer: string | undefined },
): HttpRefusal | undefined {
  const path = (request.url ?? "").split("?")[0];
  if (path !== "/mcp") return { status: 404, message: "not found; MCP is served at /mcp" };
  if (options.loopbackOnly) {
    if (!isLoopbackHost(hostOf(request.headers.host ?? "")))
      return { status: 403, message: "Host is not a loopback name" };
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== "null") {
      let originHost = "";
      try {
        originHost = new URL(origin).hostname.replace(/^\[|\]$/g, "");
      } catch {
        return { status: 403, message: "Origin is malformed" };
      }
      if (!isLoopbackHost(originHost)) return { status: 403, message: "Origin is not a loopback page" };
    }
  }
  if (options.bearer !== undefined) {
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
    const a = Buffer.from(given);
    const b = Buffer.from(options.bearer);
    if (a.length !== b.length || !timingSafeEqual(a, b))
      return { status: 401, message: "a valid bearer token is required" };
  }
  return undefined;
}
