/**
 * Why the console turned a request away. Each is the `code` of the JSON error body (and the status
 * line's reason); a refused request changes nothing in the store.
 */
export const ServeRefusal = {
  /** The request carries no token, or the wrong one (`?token=` on a page, `X-Raes-Token` on a change). HTTP 401. */
  token_required: "serve.token-required",
  /** A state-changing request whose Origin is missing or is not this console's own (cross-site). HTTP 403. */
  cross_origin: "serve.cross-origin",
  /** The Host header names something other than the console's address (DNS rebinding). HTTP 403. */
  host_refused: "serve.host-refused",
  /** No such page or endpoint. HTTP 404. */
  not_found: "serve.not-found",
  /** The method is not the endpoint's (GET for reads, POST for actions). HTTP 405. */
  method_not_allowed: "serve.method-not-allowed",
  /** A request body over 16 KiB. HTTP 413. */
  body_too_large: "serve.body-too-large",
  /** The body is not JSON `{subject, note?, generation?}` (strings, a whole number), or a query parameter is missing. HTTP 400. */
  bad_request: "serve.bad-request",
  /** No console action has this name. HTTP 404. */
  unknown_action: "serve.unknown-action",
  /** The action exists but this build does not carry it out yet. HTTP 501. */
  action_unavailable: "serve.action-unavailable",
  /** Too many live streams are open (64); close a console tab. HTTP 503. */
  too_many_streams: "serve.too-many-streams",
  /** Eight timeline frames are already being drawn or waiting to be; ask again in a moment. HTTP 503. */
  busy: "serve.busy",
  /** The store failed while answering; the error is printed on the console's stderr. HTTP 500. */
  internal: "serve.internal",
} as const;
/** A console refusal code. */
export type ServeRefusal = (typeof ServeRefusal)[keyof typeof ServeRefusal];

/** The HTTP status of each refusal. */
export const REFUSAL_STATUS: Readonly<Record<ServeRefusal, number>> = {
  "serve.token-required": 401,
  "serve.cross-origin": 403,
  "serve.host-refused": 403,
  "serve.not-found": 404,
  "serve.method-not-allowed": 405,
  "serve.body-too-large": 413,
  "serve.bad-request": 400,
  "serve.unknown-action": 404,
  "serve.action-unavailable": 501,
  "serve.too-many-streams": 503,
  "serve.busy": 503,
  "serve.internal": 500,
};

/** Why `raes serve` did not start. */
export const ServeErrorCode = {
  /** The address could not be listened on: in use, not this machine's, or not permitted (exit 2). */
  listen_failed: "serve.listen-failed",
} as const;
/** A `raes serve` start-up error code. */
export type ServeErrorCode = (typeof ServeErrorCode)[keyof typeof ServeErrorCode];
