import { MAX_JSON_DEPTH } from "./json.js";

/** How large and how deep an already-parsed value may be. */
export interface ValueBounds {
  /** The most size units: one per array element, object property and primitive, plus each string's and key's length. */
  readonly maxSize: number;
  /** The deepest nesting of arrays and objects. */
  readonly maxDepth: number;
}

/**
 * The bounds of a value that stands for a 1 MB JSON file (a manifest): every node costs at least one
 * character of JSON text and a string or key at least its length, so a value parsed from text the file
 * loader accepts (1 000 000 characters, nested at most `MAX_JSON_DEPTH`) is always inside them.
 */
export const JSON_VALUE_BOUNDS: ValueBounds = { maxSize: 1_000_000, maxDepth: MAX_JSON_DEPTH };

/**
 * The bounds of a compiled scenario model handed to an entry point. The scenario loader accepts 1 MB of
 * text that expands to at most 1 000 000 nodes nested at most `MAX_YAML_DEPTH` (100) deep; a compiled
 * model is smaller than its text (the examples: about a third), so 16 size units per expanded node and
 * twice the YAML depth leave every model the loader and compiler can make inside them.
 */
export const MODEL_VALUE_BOUNDS: ValueBounds = { maxSize: 16_000_000, maxDepth: 200 };

/**
 * Why a parsed value passes the bounds, or undefined when it is inside them. The walk is iterative and
 * stops as soon as a bound is passed, so its cost is bounded by `maxSize` whatever the value holds; a
 * value that contains itself is too deep.
 */
export function valueBoundsExceeded(
  value: unknown,
  bounds: ValueBounds = JSON_VALUE_BOUNDS,
): string | undefined {
  let size = 0;
  const tooLarge = () => `the value is larger than ${bounds.maxSize} size units`;
  // Each pending item will cost at least one unit, so `size + stack.length` never overstates the total.
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    size += 1 + (typeof item === "string" ? item.length : 0);
    if (size + stack.length > bounds.maxSize) return tooLarge();
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > bounds.maxDepth) return `the value is nested deeper than ${bounds.maxDepth} levels`;
    if (Array.isArray(item)) {
      if (size + stack.length + item.length > bounds.maxSize) return tooLarge();
      for (const child of item) stack.push([child, depth + 1]);
      continue;
    }
    for (const key in item) {
      if (!Object.hasOwn(item, key)) continue;
      size += key.length;
      if (size + stack.length + 1 > bounds.maxSize) return tooLarge();
      stack.push([(item as Record<string, unknown>)[key], depth + 1]);
    }
  }
  return undefined;
}

/** True when a parsed value nests deeper than `limit` arrays and objects: the depth bound alone. */
export function valueDepthExceeds(value: unknown, limit: number): boolean {
  return valueBoundsExceeded(value, { maxSize: Number.POSITIVE_INFINITY, maxDepth: limit }) !== undefined;
}
