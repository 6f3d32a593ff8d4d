import { ParticipantToolActionRefusal } from "../../../src/port/index.js";

const REFUSALS = new Set<string>(Object.values(ParticipantToolActionRefusal));

function hasExactly(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((k) => own.includes(k));
}

/**
 * The code a result carries when it is a well-formed answer in the shape of `method` (the
 * protocol's rule: admit answers `admitted`, dispatch `accepted`, anything else `ok`), with its
 * refusal one of the fixed codes; undefined for anything else.
 */
export function answerCode(method: unknown, result: unknown): string | undefined {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return undefined;
  const r = result as Record<string, unknown>;
  const flag = method === "admit" ? "admitted" : method === "dispatch" ? "accepted" : "ok";
  if (r[flag] === false)
    return hasExactly(r, [flag, "refusal"]) && REFUSALS.has(r.refusal as string)
      ? (r.refusal as string)
      : undefined;
  if (r[flag] !== true) return undefined;
  if (flag === "admitted")
    return hasExactly(r, [flag, "actionInstanceId"]) && typeof r.actionInstanceId === "string"
      ? flag
      : undefined;
  return hasExactly(r, [flag]) ? flag : undefined;
}

/** The id a call must be answered with: a safe integer on an object that is not an array. */
export function expectedId(message: unknown): number | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const id = (message as { id?: unknown }).id;
  return typeof id === "number" && Number.isSafeInteger(id) ? id : undefined;
}

/**
 * The answers still owed on one connection, as a multiset: a fuzzed id may repeat, and calls are
 * answered in the order they finish, not the order they were sent.
 */
export class OwedAnswers {
  readonly #owed = new Map<number, unknown[]>();
  #count = 0;
  /** Every code seen, with how often, across this connection. */
  readonly codes = new Map<string, number>();

  get remaining(): number {
    return this.#count;
  }

  owe(id: number, method: unknown): void {
    const methods = this.#owed.get(id) ?? [];
    methods.push(method);
    this.#owed.set(id, methods);
    this.#count += 1;
  }

  /** Settles one reply; a description of what is wrong with it, or undefined when it is owed and well formed. */
  settle(reply: unknown): string | undefined {
    const id = expectedId(reply);
    const methods = id === undefined ? undefined : this.#owed.get(id);
    if (id === undefined || !methods || methods.length === 0)
      return `an answer nobody asked for: ${JSON.stringify(reply)}`;
    if (!hasExactly(reply as Record<string, unknown>, ["id", "result"]))
      return `an answer with other fields than id and result: ${JSON.stringify(reply)}`;
    const result = (reply as { result?: unknown }).result;
    const index = methods.findIndex((m) => answerCode(m, result) !== undefined);
    if (index < 0) return `not a fixed answer to ${JSON.stringify(methods)}: ${JSON.stringify(reply)}`;
    const code = answerCode(methods[index], result) as string;
    methods.splice(index, 1);
    this.#count -= 1;
    this.codes.set(code, (this.codes.get(code) ?? 0) + 1);
    return undefined;
  }
}
