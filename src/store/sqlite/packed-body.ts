import type { HistoryEvent, HistoryEventDraft } from "../../records/index.js";
import { parseStored } from "../errors.js";
import { SHAPES_1, STRINGS_1 } from "./packed-vocabulary.js";

/**
 * The stored form of a history body in SQLite from schema step 11: `[1, value]`, the draft without
 * its key names and the strings its row or the vocabulary already hold, about a third of the bytes
 * every close writes. A row written before holds the draft's JSON object and is read as it is.
 *
 * A value is stored as: a primitive as itself; an array as `[0, ...items]`; an object whose keys are
 * one of the format's shapes as `[shape, ...values]`; another object as an object; a string one of
 * the row's key columns or the vocabulary holds as `[-index]`; one that extends or begins the action
 * instance id as `[-3, "what follows"]` or `[-3, -characters cut]`. Reading rebuilds each object with
 * its keys in their order, so the event exports as the same JSON text. No value's form depends on what
 * came before it in the body, so an object several events of a close share is packed once.
 */
const FORMAT = 1;

const LONE_SURROGATE = /\p{Cs}/u;

/** Strings shorter than this are not matched against the action instance id. */
const SHORTEST_REFERENCED = 8;

/** The row's key cells: a body refers to them rather than repeating them. */
export interface EventKeys {
  readonly participant_address: string;
  readonly episode_id: string;
  readonly action_instance_id: string;
}

/** Reference indexes (from 1): the three key columns, then the vocabulary. */
const VOCABULARY = new Map(STRINGS_1.map((s, i) => [s, 4 + i]));

/** The shapes by first key, so matching an object compares few keys. */
const SHAPES = new Map<string, { readonly keys: readonly string[]; readonly tag: number }[]>();
SHAPES_1.forEach((keys, i) => {
  const first = keys[0] as string;
  SHAPES.set(first, [...(SHAPES.get(first) ?? []), { keys, tag: i + 1 }]);
});

/**
 * Packed texts of the objects one close's events share, for one commit: nothing can change them
 * while it runs. An object's text depends on the row's keys only, so each entry keeps those.
 */
export type PackCache = Map<object, { readonly keys: EventKeys; readonly text: string }>;

/** The stored body of `draft` in its row with `keys`; its plain JSON if it holds other than plain data. */
export function packBody(draft: HistoryEventDraft, keys: EventKeys, cache: PackCache = new Map()): string {
  // A lone surrogate does not survive a TEXT column (UTF-8): a reference to such a key would read back altered.
  if (LONE_SURROGATE.test(keys.participant_address + keys.episode_id + keys.action_instance_id))
    return JSON.stringify(draft);
  try {
    // Written as text straight away: building the packed value first and stringifying it costs twice.
    return `[${FORMAT},${packObject(draft, keys, cache)}]`;
  } catch (error) {
    if (error instanceof NotPlainData) return JSON.stringify(draft);
    throw error;
  }
}

/** The packed JSON text of `value` (defined: the caller leaves out what JSON leaves out). */
function pack(value: unknown, keys: EventKeys, cache: PackCache): string {
  if (typeof value === "string") return packString(value, keys);
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  const cached = cache.get(value);
  if (cached !== undefined && sameKeys(cached.keys, keys)) return cached.text;
  const text = packObject(value, keys, cache);
  cache.set(value, { keys, text });
  return text;
}

function packObject(value: object, keys: EventKeys, cache: PackCache): string {
  // A toJSON method (own, or of an array's prototype) writes other JSON than the value's items or keys.
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") throw new NotPlainData();
  if (Array.isArray(value)) {
    let text = "[0";
    for (const item of value) text += `,${kept(item) ? pack(item, keys, cache) : "null"}`;
    return `${text}]`;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) throw new NotPlainData();
  const record = value as Record<string, unknown>;
  let names = Object.keys(record);
  if (!names.every((k) => kept(record[k]))) names = names.filter((k) => kept(record[k]));
  const tag = shapeOf(names);
  if (tag === 0) {
    let text = "";
    for (const k of names) {
      text += `${text === "" ? "" : ","}${JSON.stringify(k)}:${pack(record[k], keys, cache)}`;
    }
    return `{${text}}`;
  }
  let text = `[${tag}`;
  for (const k of names) text += `,${pack(record[k], keys, cache)}`;
  return `${text}]`;
}

function packString(value: string, keys: EventKeys): string {
  if (value === keys.participant_address) return "[-1]";
  if (value === keys.episode_id) return "[-2]";
  if (value === keys.action_instance_id) return "[-3]";
  const at = VOCABULARY.get(value);
  if (at !== undefined) return `[-${at}]`;
  if (value.length < SHORTEST_REFERENCED) return JSON.stringify(value);
  // Ids are built from the action instance id: the event id extends it, the scope and the
  // invocation's id are its beginnings. Such a string is stored as the id and what differs.
  const id = keys.action_instance_id;
  if (value.length > id.length && value.startsWith(id))
    return `[-3,${JSON.stringify(value.slice(id.length))}]`;
  if (value.length < id.length && id.startsWith(value)) return `[-3,${value.length - id.length}]`;
  return JSON.stringify(value);
}

function sameKeys(a: EventKeys, b: EventKeys): boolean {
  return (
    a.action_instance_id === b.action_instance_id &&
    a.participant_address === b.participant_address &&
    a.episode_id === b.episode_id
  );
}

/** The shape tag of exactly these keys in this order, or 0. */
function shapeOf(names: readonly string[]): number {
  const candidates = SHAPES.get(names[0] as string);
  if (candidates === undefined) return 0;
  for (const { keys, tag } of candidates) {
    if (keys.length !== names.length) continue;
    let i = 0;
    while (i < keys.length && keys[i] === names[i]) i += 1;
    if (i === keys.length) return tag;
  }
  return 0;
}

/**
 * The committed event stored as `body` at `sequence` in its row with `keys`, with the row's
 * `chain_digest` when it has one (last, unless the body names it): a new object each call, so the
 * sequence and digest are set on it rather than copied into another.
 */
export function unpackEvent(
  body: string,
  keys: EventKeys,
  sequence: number,
  chainDigest?: string | null,
): HistoryEvent {
  const stored = parseStored(body, `history_events row ${sequence}: its body`);
  let event: Record<string, unknown>;
  if (!Array.isArray(stored)) event = stored as Record<string, unknown>;
  else if (stored[0] !== FORMAT) throw new Error(`history body in an unknown format: ${String(stored[0])}`);
  else event = unpack(stored[1], keys) as Record<string, unknown>;
  // As a spread would: a key the body already has keeps its place (an own `__proto__` stays own).
  define(event, "sequence", sequence);
  if (typeof chainDigest === "string") define(event, "chain_digest", chainDigest);
  return event as unknown as HistoryEvent;
}

/** The string a reference names: index 1 to 3 the row's key columns, then the vocabulary. */
function named(keys: EventKeys, at: number): string {
  if (at === 1) return keys.participant_address;
  if (at === 2) return keys.episode_id;
  if (at === 3) return keys.action_instance_id;
  return STRINGS_1[at - 4] as string;
}

function unpack(value: unknown, keys: EventKeys): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (!Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) define(out, k, unpack((value as Record<string, unknown>)[k], keys));
    return out;
  }
  const tag = value[0] as number;
  if (tag < 0) {
    const known = named(keys, -tag);
    const rest = value[1] as string | number | undefined;
    if (rest === undefined) return known;
    return typeof rest === "string" ? known + rest : known.slice(0, rest);
  }
  if (tag === 0) {
    const items: unknown[] = [];
    for (let i = 1; i < value.length; i += 1) items.push(unpack(value[i], keys));
    return items;
  }
  const shape = SHAPES_1[tag - 1];
  if (shape === undefined) throw new Error(`history body with an unknown shape: ${tag}`);
  const out: Record<string, unknown> = {};
  for (let i = 0; i < shape.length; i += 1) out[shape[i] as string] = unpack(value[i + 1], keys);
  return out;
}

/** A value JSON.stringify writes in an object (it leaves the others' keys out). */
function kept(value: unknown): boolean {
  return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
}

/** Sets an own property even for `__proto__`, as JSON.parse does. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** A draft holding other than plain data (a class instance): stored as its plain JSON. */
class NotPlainData extends Error {}
