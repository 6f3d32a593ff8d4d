import { NEEDS_ESCAPING, sha256Hex, sortedNames } from "./canonical.js";

/**
 * The hash chain of a participant's history (docs/evidence-format.md). Every committed event
 * carries `chain_digest`: `sha256:` and the lowercase hex SHA-256 of the bytes of the previous
 * event's `chain_digest` (its 71 ASCII characters) followed by the UTF-8 bytes of the event's
 * RFC 8785 canonical JSON without `chain_digest`. A participant's first event chains from its
 * genesis: the same digest of the canonical JSON of `{manifest_digest, participant_address,
 * scenario_digest}` alone.
 */

/** What a participant's chain starts from: the scenario and manifest its first event was run under. */
export interface ChainAnchor {
  /** `sha256:<hex>` of the RFC 8785 JSON of the compiled runtime model; null when the writer named none. */
  readonly scenario_digest: string | null;
  /** `sha256:<hex>` of the RFC 8785 JSON of the backend manifest; null when the writer named none. */
  readonly manifest_digest: string | null;
}

/** The anchor of a chain whose writer named no scenario or manifest (a store used directly, a migrated store). */
export const UNANCHORED: ChainAnchor = { scenario_digest: null, manifest_digest: null };

/** Paired surrogates are one code point under the `u` flag: only lone ones are `Cs`. */
const LONE_SURROGATES = /\p{Cs}/gu;

/**
 * RFC 8785 texts of the objects several events of one commit share (a triple's temporal contexts and
 * tool context), by identity: nothing changes them while the commit runs, so each is written once.
 * Only nested plain objects and arrays and short strings are kept; a value with `toJSON` is written
 * every time.
 */
export type CanonicalCache = Map<object | string, string>;

/**
 * RFC 8785 (JSON Canonicalization Scheme) text of a JSON value: members sorted by the UTF-16 code
 * units of their names, no whitespace, strings and numbers as ECMAScript's JSON.stringify writes them
 * (RFC 8785 defines both by it), `toJSON` applied and members JSON leaves out dropped, as
 * JSON.stringify does. Proved against RFC 8785's examples and Appendix B numbers, and against the
 * `canonicalize` package, by test/records/chain.test.ts; written here because it runs on every event
 * a store commits, several times faster than the package. RFC 8785 admits only well-formed strings:
 * a lone surrogate (which a JSON text may escape) is written as U+FFFD, so every stored event has a
 * digest. NaN and infinities are refused. `cache` (one commit's) writes each shared nested object once.
 */
export function rfc8785(value: unknown, cache?: CanonicalCache): string {
  const text = serialize(value, cache);
  if (text === undefined) throw new TypeError("no JSON text for this value");
  return text;
}

/** `String.prototype.isWellFormed` and `toWellFormed` (Node 20): far cheaper than a `\p{Cs}` scan. */
type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };
const HAS_WELL_FORMED = typeof (String.prototype as Partial<WellFormed>).isWellFormed === "function";

/** The JSON text of a string, a lone surrogate written as U+FFFD. */
function stringText(value: string): string {
  // Most strings need no escaping: quoting them is JSON.stringify's text without the native call's copy.
  if (!NEEDS_ESCAPING.test(value)) return `"${value}"`;
  if (HAS_WELL_FORMED) {
    const checked = value as unknown as WellFormed;
    return JSON.stringify(checked.isWellFormed() ? value : checked.toWellFormed());
  }
  return JSON.stringify(LONE_SURROGATE.test(value) ? value.replace(LONE_SURROGATES, "\uFFFD") : value);
}

/** The longest string a commit's cache keeps (ids and digests, each of one event or triple, are longer). */
const SHORT_STRING = 64;

/** Member names repeat on every event: their texts are kept, up to a bound (names may be anyone's). */
const KEY_TEXTS = new Map<string, string>();
const KEY_TEXTS_KEPT = 4096;

function keyText(key: string): string {
  let text = KEY_TEXTS.get(key);
  if (text === undefined) {
    text = stringText(key);
    if (KEY_TEXTS.size < KEY_TEXTS_KEPT) KEY_TEXTS.set(key, text);
  }
  return text;
}

function serialize(input: unknown, cache: CanonicalCache | undefined, applied = false): string | undefined {
  switch (typeof input) {
    case "string": {
      // Short strings repeat across a commit's events (addresses, times, phases): each written once.
      if (cache === undefined || input.length > SHORT_STRING) return stringText(input);
      let text = cache.get(input);
      if (text === undefined) {
        text = stringText(input);
        cache.set(input, text);
      }
      return text;
    }
    case "number":
      if (!Number.isFinite(input)) throw new TypeError(`RFC 8785 has no text for ${input}`);
      return JSON.stringify(input);
    case "boolean":
      return input ? "true" : "false";
    case "object": {
      if (input === null) return "null";
      // As JSON.stringify: toJSON applies once, and its answer is written as it is (never kept).
      if (applied) return serializeObject(input, cache, undefined);
      if (typeof (input as { toJSON?: unknown }).toJSON === "function")
        return serialize((input as { toJSON: () => unknown }).toJSON(), cache, true);
      if (cache === undefined) return serializeObject(input, cache, undefined);
      const kept = cache.get(input);
      if (kept !== undefined) return kept;
      const text = serializeObject(input, cache, undefined);
      cache.set(input, text);
      return text;
    }
    default:
      // undefined, functions and symbols have no JSON text: left out of objects, null in arrays.
      return undefined;
  }
}

/**
 * The text of an object or array without `toJSON`; `skip` names one member left out, and `extra`
 * one member written with the given text whether or not the object has it.
 */
function serializeObject(
  value: object,
  cache: CanonicalCache | undefined,
  skip: string | undefined,
  extra?: readonly [name: string, text: string],
): string {
  if (value instanceof Number || value instanceof String || value instanceof Boolean)
    return serialize(value.valueOf(), cache) as string;
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i += 1)
      text += `${i === 0 ? "" : ","}${serialize(value[i], cache) ?? "null"}`;
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const names = Object.keys(record);
  if (extra !== undefined && !Object.hasOwn(record, extra[0])) names.push(extra[0]);
  let text = "";
  for (const key of sortedNames(names)) {
    if (key === skip) continue;
    const member = key === extra?.[0] ? extra[1] : serialize(record[key], cache);
    if (member === undefined) continue;
    text += `${text === "" ? "" : ","}${keyText(key)}:${member}`;
  }
  return `{${text}}`;
}

/** Whether a string holds a lone surrogate (paired ones are one code point under the `u` flag). */
const LONE_SURROGATE = /\p{Cs}/u;

function sha256(text: string): string {
  return `sha256:${sha256Hex(text)}`;
}

/** `sha256:<hex>` of the RFC 8785 JSON of a value: the scenario and manifest digests. */
export function jcsDigest(value: unknown): string {
  return sha256(rfc8785(value));
}

/** The digest a participant's first event chains from. */
export function chainGenesis(participantAddress: string, anchor: ChainAnchor): string {
  return sha256(
    rfc8785({
      manifest_digest: anchor.manifest_digest,
      participant_address: participantAddress,
      scenario_digest: anchor.scenario_digest,
    }),
  );
}

/**
 * The `chain_digest` of `event` after `previous` (the participant's previous `chain_digest`, or its
 * genesis). `event` is the committed event as `raes history --json` prints it; its own
 * `chain_digest`, if any, is left out.
 */
export function chainDigest(previous: string, event: object, cache?: CanonicalCache): string {
  // A toJSON method writes other JSON than the event's members: its own text, then without chain_digest.
  if (typeof (event as { toJSON?: unknown }).toJSON === "function") {
    const { chain_digest: _own, ...rest } = event as { chain_digest?: unknown };
    return sha256(previous + rfc8785(rest, cache));
  }
  return sha256(previous + serializeObject(event, cache, "chain_digest"));
}

/**
 * `chainDigest(previous, {...draft, sequence})` without building the committed event: a store
 * that numbers a commit's drafts as it links them writes each one's text once.
 */
export function chainDigestAt(
  previous: string,
  draft: object,
  sequence: number,
  cache?: CanonicalCache,
): string {
  if (typeof (draft as { toJSON?: unknown }).toJSON === "function" || !Number.isSafeInteger(sequence))
    return chainDigest(previous, { ...draft, sequence }, cache);
  return sha256(previous + serializeObject(draft, cache, "chain_digest", ["sequence", String(sequence)]));
}

const SEQUENCE_MARK = "\u0000";

/**
 * The RFC 8785 text of a committed event whose sequence is not yet known, around it:
 * `rfc8785({...draft, sequence: n})` is `before + String(n) + after` for every safe integer n. A store
 * that assigns sequences inside its own SQL statement completes the text there.
 */
export function canonicalAroundSequence(
  draft: object,
  cache?: CanonicalCache,
): readonly [before: string, after: string] {
  const record = draft as Record<string, unknown>;
  const keys = [...Object.keys(record).filter((k) => k !== "sequence" && k !== "chain_digest"), "sequence"];
  // RFC 8785 orders members by their names' UTF-16 code units: the order sort() gives strings.
  keys.sort();
  let text = "{";
  for (const key of keys) {
    const value = record[key];
    if (
      key !== "sequence" &&
      (value === undefined || typeof value === "function" || typeof value === "symbol")
    )
      continue;
    if (text.length > 1) text += ",";
    text += `${keyText(key)}:${key === "sequence" ? SEQUENCE_MARK : rfc8785(value, cache)}`;
  }
  const at = text.indexOf(SEQUENCE_MARK);
  return [text.slice(0, at), `${text.slice(at + 1)}}`];
}

/** A participant's chain as a store keeps it: what it starts from and where it ends. */
export interface ChainHead {
  readonly participant_address: string;
  readonly scenario_digest: string | null;
  readonly manifest_digest: string | null;
  /** The last event's `chain_digest`, or the genesis while the participant has no event. */
  readonly head_digest: string;
  /** The last event's sequence (0: none). */
  readonly head_sequence: number;
  /** How many events the chain holds. */
  readonly events: number;
  /** When a schema step computed this chain over events written before chaining, or null. */
  readonly backfilled_at: string | null;
}
