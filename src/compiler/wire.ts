function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Converts camelCase keys to RAES's snake_case wire names at every depth; record keys that are addresses stay as they are. */
export function toWireValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toWireValue);
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, entry]) => entry !== undefined)
      .map(([key, entry]): [string, unknown] => [snakeCase(key), toWireValue(entry)])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  }
  return value;
}

/** Serialises a model (or any camelCase value) as wire JSON: snake_case keys, sorted, so equal inputs give equal bytes. */
export function toWireJson(value: unknown, options: { readonly indent?: number } = {}): string {
  return JSON.stringify(toWireValue(value), null, options.indent ?? 2);
}
