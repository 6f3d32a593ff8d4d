import * as os from "node:os";

/** Why an operator identity was refused. */
export const OperatorRefusal = {
  /** The name is empty, longer than 256 characters, or holds a control character. */
  invalid: "operator.invalid",
  /** The decision's note is longer than 4096 characters. */
  note_too_long: "operator.note-too-long",
  /**
   * The decision's note holds a NUL or a lone surrogate: neither survives every store's text column
   * (SQLite keeps UTF-8, PostgreSQL refuses NUL), so the chained note would not read back as sealed.
   */
  note_invalid: "operator.note-invalid",
} as const;
/** An operator refusal code. */
export type OperatorRefusal = (typeof OperatorRefusal)[keyof typeof OperatorRefusal];

/** A refused operator identity; nothing was recorded. */
export class OperatorError extends Error {
  readonly code: OperatorRefusal;
  constructor(message: string, code: OperatorRefusal = OperatorRefusal.invalid) {
    super(message);
    this.name = "OperatorError";
    this.code = code;
  }
}

/** Where the identity comes from when no name is given: injected so tests need not change the process. */
export interface OperatorSources {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly user?: () => string;
  readonly host?: () => string;
}

const MAX_OPERATOR_LENGTH = 256;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Paired surrogates are one code point under the `u` flag: only lone ones are `Cs`. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Who makes an operator decision (docs/guide/operations.md): `given` (`--operator NAME`), else the
 * `RAES_OPERATOR` environment variable, else `USER@HOST` of the process. An empty `RAES_OPERATOR` counts
 * as unset; a given name that is empty, over 256 characters or holds a control character is refused.
 *
 * @example
 * operatorIdentity("alice", { env: {} }); // "alice"
 * operatorIdentity(undefined, { env: { RAES_OPERATOR: "ops-bot" } }); // "ops-bot"
 */
export function operatorIdentity(given?: string, sources: OperatorSources = {}): string {
  const env = sources.env ?? process.env;
  const fromEnv = env.RAES_OPERATOR;
  const name =
    given ??
    (fromEnv !== undefined && fromEnv !== ""
      ? fromEnv
      : `${(sources.user ?? defaultUser)()}@${(sources.host ?? os.hostname)()}`);
  // A lone surrogate does not survive a store's UTF-8 text: the chained name would not read back as sealed.
  if (name === "" || name.length > MAX_OPERATOR_LENGTH || CONTROL.test(name) || LONE_SURROGATE.test(name))
    throw new OperatorError(
      `an operator is 1 to ${MAX_OPERATOR_LENGTH} characters without control characters or lone surrogates`,
    );
  return name;
}

function defaultUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    // A uid with no passwd entry (a container) has no user name: the environment may still say.
    return process.env.USER ?? process.env.LOGNAME ?? "unknown";
  }
}

const MAX_NOTE_LENGTH = 4096;

/**
 * A decision's note as given, refused over 4096 characters (`operator.note-too-long`: bounded input)
 * and when it holds a NUL or a lone surrogate (`operator.note-invalid`), before anything is written:
 * neither reads back from every store as the chain sealed it.
 */
export function decisionNote(note: string | undefined): string {
  const text = note ?? "";
  if (text.length > MAX_NOTE_LENGTH)
    throw new OperatorError(`a note is at most ${MAX_NOTE_LENGTH} characters`, OperatorRefusal.note_too_long);
  if (text.includes("\u0000") || LONE_SURROGATE.test(text))
    throw new OperatorError(
      "a note holds no NUL character and no lone surrogate (half of a UTF-16 pair)",
      OperatorRefusal.note_invalid,
    );
  return text;
}

/** Microseconds, like every other stored time (a Date has milliseconds). */
export function decisionTime(at: Date): string {
  return `${at.toISOString().slice(0, -1)}000Z`;
}
