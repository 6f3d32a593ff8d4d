import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The local HTTP service the demo's MCP tools reach: a stand-in for the scenario's customer portal. */
export interface PortalService {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Requests received so far, per path. */
  requests(): Record<string, number>;
  close(): Promise<void>;
}

/** The path that answers. */
export const LOGIN_PATH = "/login";
/** The path that never answers, so a tool call on it times out at the gateway. */
export const STALLED_PATH = "/login-stalled";

/** Starts the portal on 127.0.0.1 and an ephemeral port. */
export async function startPortalService(): Promise<PortalService> {
  const counts = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    request.resume();
    if (path === STALLED_PATH) return; // never answered; `close` cuts it off
    if (path === LOGIN_PATH || path === "/customers" || path === "/admin/reset-password") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ path, reachable: true }));
      return;
    }
    response.writeHead(404, { "content-type": "application/json" });
    response.end(JSON.stringify({ path, reachable: false }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  // Never the reason a process stays up: whoever started the portal decides when to stop.
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => Object.fromEntries(counts),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
