import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  JSONRPCRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * What the gateway does with one parsed JSON-RPC value before the SDK sees it: pass a valid message
 * on, answer a malformed request itself, or drop what must never be answered (a notification or a
 * response, however malformed).
 */
export type CheckedMessage =
  | { readonly kind: "message"; readonly message: JSONRPCMessage }
  | { readonly kind: "answer"; readonly answer: JSONRPCErrorResponse }
  | { readonly kind: "ignored" };

/** The requests the gateway's server handles, each checked against the SDK's own request schema. */
const REQUEST_SCHEMAS = new Map<string, { safeParse(value: unknown): ParseResult }>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
]);

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}
type ParseResult = { success: true } | { success: false; error: { issues: readonly Issue[] } };

/** The longest message the gateway writes about a malformed request: it names the field, never echoes it. */
const MAX_MESSAGE = 200;

/** A JSON-RPC error answer; the message is cut to a fixed length. */
export function rpcError(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  // The SDK's type wants an id; JSON-RPC answers `null` when the request's id could not be read.
  return {
    jsonrpc: "2.0",
    id: id as RequestId,
    error: { code, message: message.slice(0, MAX_MESSAGE) },
  };
}

/** The answer to a line or body that is not JSON at all. */
export function parseErrorAnswer(): JSONRPCErrorResponse {
  return rpcError(null, ErrorCode.ParseError, "Parse error: not JSON");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}

/** `params.name: Invalid input: expected string, received number`: the field and what is wrong, short. */
function describeIssue(issues: readonly Issue[]): string {
  const issue = issues[0];
  if (!issue) return "invalid";
  const path = issue.path
    .slice(0, 6)
    .map((key) => String(key).slice(0, 32))
    .join(".");
  return `${path || "request"}: ${issue.message}`;
}

/**
 * Checks one parsed JSON-RPC value. A request with a readable id always gets an answer: −32602 when
 * only its params are wrong (a non-object `params` or `_meta`, a `progressToken` that is neither
 * string nor integer, a `tools/call` whose `name` is not a string or whose `arguments` are not an
 * object), −32600 otherwise. Anything else that is not a notification or a response is answered
 * −32600 with id `null`, as JSON-RPC 2.0 asks.
 *
 * @example
 * checkMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: null }).kind; // "answer"
 */
export function checkMessage(value: unknown): CheckedMessage {
  if (!isRecord(value))
    return {
      kind: "answer",
      answer: rpcError(null, ErrorCode.InvalidRequest, "Invalid Request: not an object"),
    };
  const hasId = Object.hasOwn(value, "id");
  const hasMethod = Object.hasOwn(value, "method");
  if (hasMethod && hasId) return checkRequest(value);
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { kind: "message", message: parsed.data };
  // A notification or a response is never answered, however malformed (JSON-RPC 2.0 §4.1, §5).
  if (typeof value.method === "string" && !hasId) return { kind: "ignored" };
  if (!hasMethod && (Object.hasOwn(value, "result") || Object.hasOwn(value, "error")))
    return { kind: "ignored" };
  const id = isRequestId(value.id) ? value.id : null;
  return { kind: "answer", answer: rpcError(id, ErrorCode.InvalidRequest, "Invalid Request") };
}

function checkRequest(value: Record<string, unknown>): CheckedMessage {
  if (!isRequestId(value.id))
    return {
      kind: "answer",
      answer: rpcError(null, ErrorCode.InvalidRequest, "Invalid Request: id must be a string or an integer"),
    };
  const id = value.id;
  const base = JSONRPCRequestSchema.safeParse(value);
  if (!base.success) {
    const issues = base.error.issues;
    const paramsOnly = issues.every((issue) => issue.path[0] === "params");
    return {
      kind: "answer",
      answer: paramsOnly
        ? rpcError(id, ErrorCode.InvalidParams, `Invalid params: ${describeIssue(issues)}`)
        : rpcError(id, ErrorCode.InvalidRequest, `Invalid Request: ${describeIssue(issues)}`),
    };
  }
  const schema = typeof value.method === "string" ? REQUEST_SCHEMAS.get(value.method) : undefined;
  const specific = schema?.safeParse({ method: value.method, params: value.params });
  if (specific && !specific.success)
    return {
      kind: "answer",
      answer: rpcError(
        id,
        ErrorCode.InvalidParams,
        `Invalid params: ${describeIssue(specific.error.issues)}`,
      ),
    };
  // What JSONRPCMessageSchema would make of it: its first member, the request schema, accepted it.
  return { kind: "message", message: base.data };
}

/** A request's id, when the message is a request. */
export function requestIdOf(message: JSONRPCMessage): RequestId | undefined {
  return "method" in message && "id" in message ? message.id : undefined;
}

/** The most messages one HTTP batch may hold, as the SDK's transport allows. */
export const MAX_BATCH = 100;

/** What the HTTP gateway does with one POST body. */
export type CheckedBody =
  /** Every message is valid: hand the body to the SDK's transport. */
  | { readonly kind: "messages"; readonly messages: readonly JSONRPCMessage[] }
  /**
   * The gateway answers itself: the answers (none when only notifications were malformed), the HTTP
   * status, and whether they answer a batch, so are written as an array even when there is one.
   */
  | {
      readonly kind: "answered";
      readonly status: number;
      readonly answers: readonly JSONRPCErrorResponse[];
      readonly batch: boolean;
    };

function answered(answers: readonly JSONRPCErrorResponse[], batch = false): CheckedBody {
  const status = answers.length === 0 ? 202 : answers.every((a) => a.id !== null) ? 200 : 400;
  return { kind: "answered", status, answers, batch };
}

/**
 * Checks a parsed HTTP body, one message or a batch. A batch with any malformed member, or with
 * one request id twice, runs nothing: each of its requests is answered, the malformed ones with
 * their own error and the others with −32600.
 */
export function checkBody(body: unknown): CheckedBody {
  if (!Array.isArray(body)) {
    const checked = checkMessage(body);
    if (checked.kind === "message") return { kind: "messages", messages: [checked.message] };
    return answered(checked.kind === "answer" ? [checked.answer] : []);
  }
  if (body.length === 0 || body.length > MAX_BATCH)
    return answered([
      rpcError(null, ErrorCode.InvalidRequest, `Invalid Request: a batch holds 1 to ${MAX_BATCH} messages`),
    ]);
  const checked = body.map(checkMessage);
  const seen = new Set<string>();
  let repeated = false;
  for (const c of checked) {
    const id = c.kind === "message" ? requestIdOf(c.message) : undefined;
    if (id === undefined) continue;
    const key = requestKey(id);
    if (seen.has(key)) repeated = true;
    seen.add(key);
  }
  if (!repeated && checked.every((c) => c.kind === "message"))
    return { kind: "messages", messages: checked.map((c) => (c as { message: JSONRPCMessage }).message) };
  const answers: JSONRPCErrorResponse[] = [];
  for (const c of checked) {
    if (c.kind === "answer") answers.push(c.answer);
    const id = c.kind === "message" ? requestIdOf(c.message) : undefined;
    if (id !== undefined)
      answers.push(
        rpcError(
          id,
          ErrorCode.InvalidRequest,
          repeated
            ? "Invalid Request: the batch repeats a request id; nothing in it was run"
            : "Invalid Request: the batch holds a malformed message; nothing in it was run",
        ),
      );
  }
  return answered(answers, true);
}

/** A request id as a map key: `1` and `"1"` are different ids. */
export function requestKey(id: RequestId): string {
  return `${typeof id === "number" ? "n" : "s"}:${id}`;
}
