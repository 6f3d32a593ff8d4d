import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { describe, it } from "node:test";
import { checkRequest } from "../../../src/mcp/http/guard.js";
import { bearerTokenProblem, parseHttpAddress } from "../../../src/mcp/index.js";

const request = (headers: Record<string, string>, url = "/mcp") =>
  ({ url, headers }) as unknown as IncomingMessage;

describe("the HTTP gateway's guard", () => {
  it("a bare PORT listens on loopback; HOST:PORT and [v6]:PORT as given", () => {
    assert.deepEqual(parseHttpAddress("8765"), { host: "127.0.0.1", port: 8765 });
    assert.deepEqual(parseHttpAddress("0"), { host: "127.0.0.1", port: 0 });
    assert.deepEqual(parseHttpAddress("0.0.0.0:80"), { host: "0.0.0.0", port: 80 });
    assert.deepEqual(parseHttpAddress("[::1]:0"), { host: "::1", port: 0 });
    assert.equal(parseHttpAddress("70000"), undefined);
    assert.equal(parseHttpAddress("host"), undefined);
  });

  it("refuses Origin: null on any bind, and any Origin other than the gateway's own, another local port included", () => {
    const host = "127.0.0.1:1";
    for (const loopbackOnly of [true, false])
      assert.equal(
        checkRequest(request({ host, origin: "null" }), { loopbackOnly, bearer: undefined })?.code,
        "mcp-http.origin-refused",
      );
    const foreign = request({ host, origin: "http://evil.example" });
    assert.equal(
      checkRequest(foreign, { loopbackOnly: true, bearer: undefined })?.code,
      "mcp-http.origin-refused",
    );
    for (const loopbackOnly of [true, false]) {
      const otherPort = request({ host, origin: "http://localhost:3000" });
      assert.equal(
        checkRequest(otherPort, { loopbackOnly, bearer: undefined })?.code,
        "mcp-http.origin-refused",
      );
      const own = request({ host, origin: `http://${host}` });
      assert.equal(checkRequest(own, { loopbackOnly, bearer: undefined }), undefined);
    }
  });

  it("a bearer token is 16 to 1024 characters of the RFC 6750 alphabet", () => {
    assert.equal(bearerTokenProblem("0123456789abcdef"), undefined);
    assert.equal(bearerTokenProblem("A-Za-z0-9._~+/token=="), undefined);
    assert.match(bearerTokenProblem("0123456789abcde") ?? "", /16 to 1024/);
    assert.match(bearerTokenProblem("x".repeat(1025)) ?? "", /16 to 1024/);
    assert.match(bearerTokenProblem("with a space in it") ?? "", /only/);
    const token = "0123456789abcdef";
    const wrong = request({ host: "127.0.0.1:1", authorization: "Bearer 0123456789abcdeX" });
    assert.equal(checkRequest(wrong, { loopbackOnly: true, bearer: token })?.status, 401);
    const right = request({ host: "127.0.0.1:1", authorization: `Bearer ${token}` });
    assert.equal(checkRequest(right, { loopbackOnly: true, bearer: token }), undefined);
  });
});
