import type { ControlPlaneStore } from "../store/index.js";

/** Codes of an operation id that names no operation, or more than one. */
export const OperationLookupCode = {
  /** No operation has this id, and none starts or ends with it. */
  not_found: "operation.not-found",
  /** More than one operation starts or ends with the given part of an id; the error lists them. */
  ambiguous: "operation.ambiguous-id",
} as const;
/** An operation lookup code. */
export type OperationLookupCode = (typeof OperationLookupCode)[keyof typeof OperationLookupCode];

/** How many matches an ambiguous id lists. */
export const AMBIGUOUS_LISTED = 10;

/** An id that names no operation, or several (`matches`, at most `AMBIGUOUS_LISTED`). */
export class OperationLookupError extends Error {
  readonly code: OperationLookupCode;
  readonly id: string;
  readonly matches: readonly string[];

  constructor(code: OperationLookupCode, id: string, matches: readonly string[] = []) {
    super(
      code === OperationLookupCode.not_found
        ? `no operation ${JSON.stringify(id)}, and none whose id starts or ends with it`
        : `${JSON.stringify(id)} is the start or end of more than one operation id; give more of it:\n${matches.map((m) => `  ${m}`).join("\n")}${matches.length >= AMBIGUOUS_LISTED ? "\n  …" : ""}`,
    );
    this.name = "OperationLookupError";
    this.code = code;
    this.id = id;
    this.matches = matches;
  }
}

/**
 * The full id of the one operation `id` names: the id itself, or the only operation id that starts
 * or ends with it (like a short git hash). Throws `OperationLookupError` when none or several do.
 *
 * @example
 * await operationId(store, ":1:tool=2"); // "participant…:participant.behavior.a:1:tool=2"
 */
export async function operationId(store: ControlPlaneStore, id: string): Promise<string> {
  if (await store.getOperation(id)) return id;
  const matches = await store.findOperationIds(id, AMBIGUOUS_LISTED);
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0) throw new OperationLookupError(OperationLookupCode.not_found, id);
  throw new OperationLookupError(OperationLookupCode.ambiguous, id, matches);
}

/**
 * The shortest end of `id` that names it alone in the store, cut at a `:` or `.` and holding at least
 * one `:` (so it reads as an id, `agent:1`, not `1`), at most `widest` characters; the whole id when
 * no shorter end is unique. What a table prints for an id.
 */
export async function shortOperationId(store: ControlPlaneStore, id: string, widest = 48): Promise<string> {
  if (id.length <= widest) return id;
  const cuts: number[] = [];
  for (let i = id.length - 1; i > 0; i -= 1) if (id[i] === ":" || id[i] === ".") cuts.push(i + 1);
  for (const cut of cuts) {
    const end = id.slice(cut);
    if (end.length > widest) break;
    if (!end.includes(":")) continue;
    const matches = await store.findOperationIds(end, 2);
    if (matches.length === 1 && matches[0] === id) return end;
  }
  return id;
}
