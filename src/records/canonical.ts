import * as crypto from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  // Plain data (nearly every call: requests, results, model parts) is written directly, without the
  // sorted copy; anything else is copied and stringified, which defines the text.
  try {
    // A toJSON given to every array or object (a polluted prototype; Array's inherits Object's)
    // would apply to the copy too.
    if ("toJSON" in Array.prototype) throw NOT_PLAIN;
    return plainJson(value) as string;
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return JSON.stringify(sortKeys(value));
  }
}

/**
 * Sorted member names by the names in an object's own order, under each first name: events of one
 * kind have the same members in the same order, so each order is sorted once. Bounded, as names may
 * be anyone's.
 */
const SORTED_NAMES = new Map<
  string,
  { readonly names: readonly string[]; readonly sorted: readonly string[] }[]
>();
const SORTED_FIRST_KEPT = 1024;
const SORTED_ORDERS_KEPT = 8;

/** `names` in RFC 8785 order: by their UTF-16 code units, the order sort() gives strings. `names` is kept: not changed after. */
export function sortedNames(names: string[]): readonly string[] {
  if (names.length < 2) return names;
  const first = names[0] as string;
  const orders = SORTED_NAMES.get(first);
  if (orders !== undefined) {
    for (const order of orders) {
      const known = order.names;
      if (known.length !== names.length) continue;
      let i = 1;
      while (i < names.length && known[i] === names[i]) i += 1;
      if (i === names.length) return order.sorted;
    }
  }
  const sorted = [...names].sort();
  if (orders === undefined) {
    if (SORTED_NAMES.size < SORTED_FIRST_KEPT) SORTED_NAMES.set(first, [{ names, sorted }]);
  } else if (orders.length < SORTED_ORDERS_KEPT) orders.push({ names, sorted });
  return sorted;
}

/** Thrown (one object, no stack) where `plainJson` cannot be sure to write what the copy would. */
const NOT_PLAIN: unknown = Object.freeze({ notPlain: true });

/**
 * What JSON.stringify escapes in a string (`"`, `\\`, controls, lone surrogates), and any surrogate:
 * a string holding none of these is its own JSON text between quotes.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes.
export const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify of a string, without the native call where the string needs no escaping. */
function jsonString(value: string): string {
  return NEEDS_ESCAPING.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/**
 * `JSON.stringify(sortKeys(value))` written directly, for plain data: strings, numbers, booleans,
 * null, and arrays and objects of Array's and Object's (or no) prototype. Throws NOT_PLAIN at
 * anything whose copy could be written otherwise: another prototype (a Date, a boxed value, a class
 * instance, a typed array), a bigint, a member named `toJSON`, or a member name beginning with a
 * digit (an index name, which the copy would hold first, in numeric order).
 */
function plainJson(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return jsonString(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
    case "function":
    case "symbol":
      // No text: left out of an object, null in an array, as JSON.stringify does.
      return undefined;
    case "object": {
      if (value === null) return "null";
      const prototype = Object.getPrototypeOf(value);
      if (Array.isArray(value)) {
        if (prototype !== Array.prototype) throw NOT_PLAIN;
        let text = "[";
        for (let i = 0; i < value.length; i += 1)
          text += `${i === 0 ? "" : ","}${plainJson(value[i]) ?? "null"}`;
        return `${text}]`;
      }
      if (prototype !== Object.prototype && prototype !== null) throw NOT_PLAIN;
      const record = value as Record<string, unknown>;
      let text = "";
      for (const key of sortedNames(Object.keys(record))) {
        const first = key.charCodeAt(0);
        if ((first >= 48 && first <= 57) || key === "toJSON") throw NOT_PLAIN;
        const member = plainJson(record[key]);
        if (member === undefined) continue;
        text += `${text === "" ? "" : ","}${jsonString(key)}:${member}`;
      }
      return `{${text}}`;
    }
    default:
      throw NOT_PLAIN;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined) continue;
      // A member named "__proto__" (JSON.parse makes one) is defined as a member: assigned, it would
      // set the copy's prototype and be lost, and values that differ only there would share a digest.
      // (A copy without a prototype keeps it too, but costs about a fifth more per call.)
      if (key === "__proto__")
        Object.defineProperty(out, key, {
          value: sortKeys(v),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** Node's one-shot digest (from 20.12), cheaper than a Hash object per call; older Node builds one. */
const oneShot = typeof crypto.hash === "function" ? crypto.hash : undefined;

/** `sha256:<hex>` of the canonical JSON of a value. */
export function canonicalDigest(value: unknown): string {
  return textDigest(canonicalJson(value));
}

/** `sha256:<hex>` of a text: canonicalDigest for a value whose canonical JSON is already written. */
export function textDigest(text: string): string {
  return `sha256:${sha256Hex(text)}`;
}

/** The hex SHA-256 of a text's UTF-8, by Node's one-shot digest where it has one (several times cheaper per call). */
export function sha256Hex(text: string): string {
  if (oneShot !== undefined) return oneShot("sha256", text, "hex");
  return crypto.createHash("sha256").update(text).digest("hex");
}
