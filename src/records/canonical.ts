import * as crypto from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    // No prototype: a member named "__proto__" (JSON.parse makes one) is kept as a member, not set as
    // the copy's prototype and lost, so values that differ only there have different digests.
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
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
