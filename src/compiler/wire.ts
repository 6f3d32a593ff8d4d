function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Records whose keys are data (authored refs), not field names: written as they are. */
const DATA_KEYED = new WeakSet<object>();

/**
 * Marks a record whose keys are authored data (such as a view relation's information refs), so the
 * wire form keeps its keys as written instead of converting them to snake_case; returns the record.
 */
export function dataKeyed<T extends object>(record: T): T {
  DATA_KEYED.add(record);
  return record;
}

/** Converts camelCase keys to RAES's snake_case wire names at every depth; record keys that are addresses, and data-keyed records' keys, stay as they are. */
export function toWireValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toWireValue);
  if (value !== null && typeof value === "object") {
    const rename = DATA_KEYED.has(value) ? (key: string) => key : snakeCase;
    const entries = Object.entries(value)
      .filter(([, entry]) => entry !== undefined)
      .map(([key, entry]): [string, unknown] => [rename(key), toWireValue(entry)])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  }
  return value;
}

/** Serialises a model (or any camelCase value) as wire JSON: snake_case keys, sorted, so equal inputs give equal bytes. */
export function toWireJson(value: unknown, options: { readonly indent?: number } = {}): string {
  return JSON.stringify(toWireValue(value), null, options.indent ?? 2);
}
