import type { IncomingMessage, ServerResponse } from "node:http";
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { type CheckedBody, parseErrorAnswer } from "../wire/index.js";
import { type HttpRefusal, HttpRefusalCode } from "./guard.js";

/** The largest POST body read, the SDK transport's own bound (4 MiB). */
export const MAX_BODY_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE;

/** Answers a refused request: the status and a JSON-RPC error naming the code (`data.code`) and why. */
export function refuse(response: ServerResponse, refusal: HttpRefusal): void {
  if (response.headersSent) return;
  response.writeHead(refusal.status, { "content-type": "application/json" });
  response.end(
    JSON.stringify({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: `raes: ${refusal.code}: ${refusal.message}`,
        data: { code: refusal.code },
      },
      id: null,
    }),
  );
}

/** Answers a request that failed inside the gateway; the error is logged, never sent. */
export function internalError(response: ServerResponse): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(500, { "content-type": "application/json" });
  response.end(
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null }),
  );
}

/** Writes the gateway's own JSON-RPC answers to a POST (none: 202). */
export function writeAnswers(response: ServerResponse, checked: CheckedBody & { kind: "answered" }): void {
  if (checked.answers.length === 0) {
    response.writeHead(202).end();
    return;
  }
  response.writeHead(checked.status, { "content-type": "application/json" });
  const single = checked.answers.length === 1 && !checked.batch;
  response.end(JSON.stringify(single ? checked.answers[0] : checked.answers));
}

/**
 * Makes the SDK transport's JSON answer to a batch an array, as JSON-RPC 2.0 requires of a batch
 * answer: the SDK writes the answer to a batch holding one request as a bare object. The answer is
 * held until it ends (the SDK writes it whole anyway), bracketed when it is an object, and its
 * `Content-Length` set again. Any other answer (202, an error status, not JSON) goes out as it is.
 */
export function answerBatchAsArray(response: ServerResponse): void {
  const writeHead = response.writeHead.bind(response);
  const write = response.write.bind(response);
  const end = response.end.bind(response);
  let head: { status: number; headers: Record<string, string | number | readonly string[]> } | undefined;
  const chunks: Buffer[] = [];
  const hold = (chunk: unknown) => {
    if (typeof chunk === "string") chunks.push(Buffer.from(chunk));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  response.writeHead = ((status: number, ...rest: unknown[]) => {
    const given = rest.find((r) => typeof r === "object" && r !== null && !Array.isArray(r)) as
      | Record<string, string | number | readonly string[]>
      | undefined;
    const headers = { ...given };
    const type = Object.entries(headers).find(([k]) => k.toLowerCase() === "content-type")?.[1];
    const json = String(type ?? response.getHeader("content-type") ?? "").startsWith("application/json");
    if (status !== 200 || !json) {
      response.writeHead = writeHead;
      response.write = write;
      response.end = end;
      return writeHead(status, ...(rest as []));
    }
    for (const key of Object.keys(headers)) if (key.toLowerCase() === "content-length") delete headers[key];
    response.removeHeader("content-length");
    head = { status, headers };
    return response;
  }) as typeof response.writeHead;
  response.write = ((chunk: unknown) => {
    if (head === undefined) return write(chunk as string);
    hold(chunk);
    return true;
  }) as typeof response.write;
  response.end = ((chunk?: unknown) => {
    if (head === undefined) return end(chunk as string);
    hold(chunk);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = text.trimStart().startsWith("{") ? `[${text}]` : text;
    writeHead(head.status, { ...head.headers, "content-length": Buffer.byteLength(body) });
    return end(body);
  }) as typeof response.end;
}

/** The most of an oversized body discarded after its 413, so the client can read the answer; past it the connection is cut. */
const MAX_DISCARDED_BYTES = 4 * MAX_BODY_BYTES;

/**
 * Reads and parses a POST body of at most `MAX_BODY_BYTES`. A larger one is answered 413, and the
 * rest of it read and discarded (up to a bound, then the connection is cut) so that the client, still
 * sending, gets to read the answer. One that is not JSON is answered −32700. Either way the result
 * is not ok.
 */
export async function readBody(
  request: IncomingMessage,
  response: ServerResponse,
): Promise<{ readonly ok: true; readonly value: unknown } | { readonly ok: false }> {
  let size = 0;
  const tooLarge = () => {
    // No `connection: close`: Node would close the socket once the answer is out, under a client still
    // sending, which then never reads it. The rest is read and discarded instead (up to a bound).
    refuse(response, {
      status: 413,
      code: HttpRefusalCode.body_too_large,
      message: `the body is larger than ${MAX_BODY_BYTES} bytes`,
    });
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DISCARDED_BYTES) request.destroy();
    });
    request.resume();
    return { ok: false } as const;
  };
  if (Number(request.headers["content-length"]) > MAX_BODY_BYTES) return tooLarge();
  const body = await bodyUpTo(request, MAX_BODY_BYTES);
  if (typeof body === "number") {
    size = body;
    return tooLarge();
  }
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch {
    response.writeHead(400, { "content-type": "application/json" });
    response.end(JSON.stringify(parseErrorAnswer()));
    return { ok: false };
  }
}

/**
 * The request's body, or once it passes `max` bytes the count read so far (the rest is left to the
 * caller, the stream flowing). Read by listeners rather than an async iterator: this is on every
 * POST's path, and the iterator's machinery costs more than the read. Rejects when the request fails
 * or closes first.
 */
function bodyUpTo(request: IncomingMessage, max: number): Promise<Buffer | number> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
      request.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        stop();
        resolve(size);
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(new Error("the request closed before its body ended"));
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onError);
    request.on("close", onClose);
  });
}
