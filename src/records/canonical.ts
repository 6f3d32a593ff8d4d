import * as crypto from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
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
