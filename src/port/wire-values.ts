/**
 * A reversible encoding of call arguments for bridges, so a remote port answers exactly as the
 * in-process port would: JSON and structured clone would silently drop `undefined` fields, turn
 * class instances into plain objects, or throw on functions, each changing the answer.
 */

const MARK = "$raes";
const UNDEFINED = "undefined";
const UNREPRESENTABLE = "unrepresentable";

/** What a value that cannot cross a bridge faithfully becomes on the other side: invalid in every slot. */
export class UnrepresentableValue {}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Encodes a value for the wire. */
export function encodeWireValue(value: unknown): unknown {
  if (value === undefined) return { [MARK]: UNDEFINED };
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : { [MARK]: UNREPRESENTABLE };
  if (Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype)
    return value.map(encodeWireValue);
  if (typeof value === "object" && isPlain(value) && !(MARK in value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = encodeWireValue(v);
    return out;
  }
  return { [MARK]: UNREPRESENTABLE };
}

/** Decodes a value from the wire; anything malformed stays as it is and is judged by the port. */
export function decodeWireValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeWireValue);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]?.[0] === MARK) {
    if (entries[0][1] === UNDEFINED) return undefined;
    return new UnrepresentableValue();
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) out[k] = decodeWireValue(v);
  return out;
}
