import { RandomStreamError, RandomStreamErrorCode } from "./codes.js";

/** A stream-address value: strings, safe integers and nested objects only (RAES addresses hold nothing else). */
export type AddressValue = string | number | { readonly [key: string]: AddressValue | undefined };

/**
 * RFC 8785 (JCS) text of an address. For strings and integers JCS is exactly ECMAScript's
 * JSON serialisation, with object keys sorted by UTF-16 code units; undefined members are
 * omitted, as RAES omits unset optional fields.
 */
export function canonicalAddressText(value: AddressValue): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value))
      throw new RandomStreamError(RandomStreamErrorCode.address_invalid, `not a safe integer: ${value}`);
    return String(value);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new RandomStreamError(
      RandomStreamErrorCode.address_invalid,
      "address members are strings, integers or objects",
    );
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const member = value[key];
    if (member !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalAddressText(member)}`);
  }
  return `{${parts.join(",")}}`;
}
