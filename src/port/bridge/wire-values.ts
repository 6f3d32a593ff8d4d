/**
 * A reversible encoding of call arguments for bridges, so a remote port answers exactly as the
 * in-process port would: JSON and structured clone would silently drop `undefined` fields, turn
 * class instances into plain objects, or throw on functions, each changing the answer.
 *
 * Both directions walk the value with an explicit stack and stop at the argument bounds: a peer
 * controls the shape, so nesting must never reach the call stack, and size must never reach memory.
 */
import { BridgeLimits } from "./limits.js";

const MARK = "$raes";
const UNDEFINED = "undefined";
const UNREPRESENTABLE = "unrepresentable";

/** What a value that cannot cross a bridge faithfully becomes on the other side: invalid in every slot. */
export class UnrepresentableValue {}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Sets an own data property; plain assignment of `__proto__` would replace the prototype instead. */
function defineOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** One value still to visit: where it is, how deep, and where its result goes. */
interface Visit {
  readonly value: unknown;
  readonly depth: number;
  readonly put: (result: unknown) => void;
}

/** What `step` makes of one value: a leaf result, or a container whose children still need visits. */
type Step =
  | { readonly leaf: unknown }
  | { readonly container: object; readonly children: ReadonlyArray<readonly [string | number, unknown]> };

/**
 * Walks `root` depth first with an explicit stack, building the result in the same key order.
 * Undefined when the value is deeper or larger than one argument may be.
 */
function walk(root: unknown, step: (value: unknown) => Step | undefined): { value: unknown } | undefined {
  let result: unknown;
  let visited = 0;
  const stack: Visit[] = [{ value: root, depth: 1, put: (v) => (result = v) }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    visited += 1;
    if (visit.depth > BridgeLimits.maxArgumentDepth || visited > BridgeLimits.maxArgumentValues)
      return undefined;
    const made = step(visit.value);
    if (!made) return undefined;
    if ("leaf" in made) {
      visit.put(made.leaf);
      continue;
    }
    const { container, children } = made;
    visit.put(container);
    // Pushed last to first, so the first child is built first and keys keep their order.
    for (let i = children.length - 1; i >= 0; i--) {
      const [key, value] = children[i] as readonly [string | number, unknown];
      const put = Array.isArray(container)
        ? (v: unknown) => {
            (container as unknown[])[key as number] = v;
          }
        : (v: unknown) => defineOwn(container, key as string, v);
      stack.push({ value, depth: visit.depth + 1, put });
    }
  }
  return { value: result };
}

/** The children of an array or object, unless there are more than an argument may hold at all. */
function childrenOf(value: object): Array<readonly [string | number, unknown]> | undefined {
  if (Array.isArray(value)) {
    if (value.length > BridgeLimits.maxArgumentValues) return undefined;
    return Array.from(value, (v, i) => [i, v] as const);
  }
  const keys = Object.keys(value);
  if (keys.length > BridgeLimits.maxArgumentValues) return undefined;
  return keys.map((k) => [k, (value as Record<string, unknown>)[k]] as const);
}

const MARK_UNREPRESENTABLE = Object.freeze({ [MARK]: UNREPRESENTABLE });

function encodeStep(value: unknown): Step | undefined {
  if (value === undefined) return { leaf: { [MARK]: UNDEFINED } };
  if (value === null || typeof value === "string" || typeof value === "boolean") return { leaf: value };
  if (typeof value === "number")
    return { leaf: Number.isFinite(value) ? value : { [MARK]: UNREPRESENTABLE } };
  const array = Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;
  const plainObject =
    typeof value === "object" && !Array.isArray(value) && isPlain(value) && !(MARK in value);
  if (!array && !plainObject) return { leaf: { [MARK]: UNREPRESENTABLE } };
  const children = childrenOf(value as object);
  return children && { container: array ? [] : {}, children };
}

/**
 * True when `root` is plain data that `walk` would copy node for node, unchanged: strings,
 * booleans, null, finite numbers, arrays without holes or extra keys, and plain objects without the
 * mark key, within the argument bounds. Such a value crosses as it is (no copy); anything else takes
 * the walk. Visited with an explicit stack, as the walk is.
 */
function crossesAsIs(root: unknown): boolean {
  const stack: unknown[] = [root];
  const depths: number[] = [1];
  let visited = 0;
  while (stack.length > 0) {
    const value = stack.pop();
    const depth = depths.pop() as number;
    visited += 1;
    if (depth > BridgeLimits.maxArgumentDepth || visited > BridgeLimits.maxArgumentValues) return false;
    if (value === null || typeof value === "string" || typeof value === "boolean") continue;
    if (typeof value === "number") {
      if (Number.isFinite(value)) continue;
      return false;
    }
    if (typeof value !== "object") return false;
    if (Array.isArray(value)) {
      if (Object.getPrototypeOf(value) !== Array.prototype) return false;
      const length = value.length;
      if (length > BridgeLimits.maxArgumentValues || Object.keys(value).length !== length) return false;
      for (let i = 0; i < length; i++) {
        stack.push(value[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    if (!isPlain(value) || MARK in value) return false;
    const keys = Object.keys(value);
    if (keys.length > BridgeLimits.maxArgumentValues) return false;
    for (const key of keys) {
      stack.push((value as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return true;
}

/**
 * Encodes one call argument for the wire. One beyond the argument bounds is invalid in every slot
 * of every call, so it crosses as the unrepresentable mark and the far port refuses it as it would here.
 */
export function encodeWireValue(value: unknown): unknown {
  if (crossesAsIs(value)) return value;
  const walked = walk(value, encodeStep);
  return walked ? walked.value : MARK_UNREPRESENTABLE;
}

function decodeStep(value: unknown): Step | undefined {
  if (value === null || typeof value !== "object") return { leaf: value };
  // Structured clone can deliver dates, maps or typed arrays of any size; none is valid anywhere.
  if (!Array.isArray(value) && !isPlain(value)) return { leaf: new UnrepresentableValue() };
  if (!Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === MARK)
      return {
        leaf: (value as Record<string, unknown>)[MARK] === UNDEFINED ? undefined : new UnrepresentableValue(),
      };
  }
  const children = childrenOf(value);
  return children && { container: Array.isArray(value) ? [] : {}, children };
}

/**
 * Decodes one call argument from the wire; anything malformed within the bounds stays as it is and
 * is judged by the port. Undefined (not `{value: undefined}`) when the argument exceeds the bounds.
 */
export function decodeWireValue(value: unknown): { value: unknown } | undefined {
  if (crossesAsIs(value)) return { value };
  return walk(value, decodeStep);
}
