/**
 * Bounds on what a bridge accepts. A valid call is tiny (at most 11 fields and 64 ids of 256
 * characters each), so every bound sits far above any valid call and far below what could hurt
 * the process that serves the port.
 */
export const BridgeLimits = {
  /** Deepest nesting of one call argument (a valid one is 3 deep: request, target list, id). */
  maxArgumentDepth: 16,
  /** Most values in one call argument (a valid one has under 100). */
  maxArgumentValues: 1024,
  /** Longest line a socket peer may send after authenticating (a valid call is under 120 KB). */
  maxFrameBytes: 256 * 1024,
  /** Longest line a socket peer may send before authenticating (the token line is under 100 bytes). */
  maxPreAuthBytes: 4 * 1024,
  /** How long a socket connection may stay unauthenticated. */
  authDeadlineMs: 2_000,
  /** How long a token holder refused for a bad line may still send before the server cuts it off. */
  refusalLingerMs: 2_000,
  /** Most unauthenticated connections a served port holds; a new one evicts the oldest. */
  maxPendingConnections: 64,
  /** Most authenticated connections a served port holds; more are refused. */
  maxAuthenticatedConnections: 64,
  /** Most calls one socket connection may have in flight before the server stops reading it. */
  maxCallsInFlight: 64,
} as const;
/** The bridge bounds. */
export type BridgeLimits = typeof BridgeLimits;

/** Why a served socket closes a connection; the server writes it as `{"error": code}` first. */
export const SocketRefusal = {
  /** The first line did not carry the port's token. */
  unauthorized: "bridge.unauthorized",
  /** No token arrived within the authentication deadline. */
  auth_timeout: "bridge.auth-timeout",
  /** A line exceeded the size bound for its phase (before or after authentication). */
  frame_too_large: "bridge.frame-too-large",
  /** An authenticated line was not a JSON object with a numeric id, so no answer could name it. */
  frame_invalid: "bridge.frame-invalid",
  /** The port already holds as many connections of this kind as it allows. */
  too_many_connections: "bridge.too-many-connections",
} as const;
/** A reason a served socket closes a connection. */
export type SocketRefusal = (typeof SocketRefusal)[keyof typeof SocketRefusal];
