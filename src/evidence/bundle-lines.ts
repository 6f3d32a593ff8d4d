import { createReadStream } from "node:fs";

/** Codes of the evidence bundle's own findings and refusals (docs/evidence-format.md). */
export const EvidenceCode = {
  /** The bundle file cannot be read (missing, a directory, no permission): nothing was checked; exit 2. */
  bundle_unreadable: "evidence.bundle-unreadable",
  /** A line of the bundle is longer than `MAX_BUNDLE_LINE_BYTES`: the bundle is read no further; exit 1. */
  line_too_long: "evidence.line-too-long",
  /** A line of the bundle is not UTF-8; its bytes still count in the seal's digest; exit 1. */
  invalid_utf8: "evidence.invalid-utf8",
  /** The seal's signature is not standard base64 (with padding) of exactly 64 bytes; exit 1. */
  signature_malformed: "evidence.signature-malformed",
  /** The seal line is not byte for byte its canonical form (`sealLine`): extra or repeated members, spaces, CR, no final LF; exit 1. */
  seal_not_canonical: "evidence.seal-not-canonical",
  /**
   * A line holds a member its kind does not have (docs/evidence-bundle.schema.json: no other members),
   * or an object in it repeats a key (which JSON parsers read differently); exit 1.
   */
  line_members: "evidence.line-members",
  /** An event or decision no writer could have sealed: a number RFC 8785 has no text for, or nesting past `MAX_EVIDENCE_DEPTH`; exit 1. */
  unsealable: "evidence.unsealable",
  /** `raes export` found the store's chains broken in the snapshot it was exporting; no bundle was written; exit 1. */
  store_broken: "evidence.store-broken",
  /** An `input` line's `digest` is not the digest of its bytes, or the line is not an input line (role, name, base64); exit 1. */
  input_digest: "evidence.input-digest",
  /**
   * An included input is not what any chain started from: `raes verify FILE` finds no chain line
   * recording its scenario or manifest digest (exit 1); `raes export` refuses such a file, writing nothing (exit 2).
   */
  input_unanchored: "evidence.input-unanchored",
  /** `raes export` cannot create the bundle: its folder is missing or not writable; nothing was written; exit 2. */
  bundle_unwritable: "evidence.bundle-unwritable",
} as const;
/** An evidence code. */
export type EvidenceCode = (typeof EvidenceCode)[keyof typeof EvidenceCode];

/**
 * The longest line a bundle may hold, its line feed excluded: 64 MiB, above the largest event a run
 * records (an upstream MCP line is at most 10 MiB, and its JSON escaping at most doubles it).
 * `raes export` refuses to write a longer line, `raes verify FILE` to read one.
 */
export const MAX_BUNDLE_LINE_BYTES = 64 * 1024 * 1024;

/** The bundle file cannot be read; nothing was checked. */
export class BundleUnreadableError extends Error {
  readonly code = EvidenceCode.bundle_unreadable;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BundleUnreadableError";
  }
}

/** `raes export --include-inputs` was given a file no chain of the store started from; no bundle was written. */
export class InputUnanchoredError extends Error {
  readonly code = EvidenceCode.input_unanchored;
  constructor(message: string) {
    super(message);
    this.name = "InputUnanchoredError";
  }
}

/** `raes export` cannot create the bundle file (its folder is missing or not writable); nothing was written. */
export class BundleUnwritableError extends Error {
  readonly code = EvidenceCode.bundle_unwritable;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BundleUnwritableError";
  }
}

/** `raes export` would write a line longer than `MAX_BUNDLE_LINE_BYTES`; no bundle was written. */
export class BundleLineTooLongError extends Error {
  readonly code = EvidenceCode.line_too_long;
  constructor(message: string) {
    super(message);
    this.name = "BundleLineTooLongError";
  }
}

/** A line as read: its exact bytes (the line feed included when there is one), and its text when UTF-8. */
export interface BundleLine {
  readonly bytes: Buffer;
  /** Undefined when the bytes are not UTF-8. */
  readonly text: string | undefined;
}

/**
 * The file's lines, split at byte 0x0A only (a carriage return is part of its line), each with the
 * bytes exactly as stored, so the seal's digest is taken over the file's own bytes, never a decoded
 * and re-encoded text. Streaming: memory holds at most one line of `max` bytes; a longer line ends
 * the reading with `{ tooLong: true }`.
 */
export async function* bundleLines(
  file: string,
  max = MAX_BUNDLE_LINE_BYTES,
): AsyncGenerator<BundleLine | { readonly tooLong: true }> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const line = (bytes: Buffer): BundleLine => {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0a ? bytes.length - 1 : bytes.length;
    try {
      return { bytes, text: decoder.decode(bytes.subarray(0, end)) };
    } catch {
      return { bytes, text: undefined };
    }
  };
  let parts: Buffer[] = [];
  let size = 0;
  const stream = createReadStream(file);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let from = 0;
      for (let at = chunk.indexOf(0x0a, from); at !== -1; at = chunk.indexOf(0x0a, from)) {
        if (size + at - from > max) return yield { tooLong: true };
        parts.push(chunk.subarray(from, at + 1));
        yield line(Buffer.concat(parts));
        parts = [];
        size = 0;
        from = at + 1;
      }
      if (from < chunk.length) {
        size += chunk.length - from;
        if (size > max) return yield { tooLong: true };
        parts.push(chunk.subarray(from));
      }
    }
  } catch (error) {
    throw new BundleUnreadableError(
      `cannot read the bundle ${file}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    stream.destroy();
  }
  if (size > 0) yield line(Buffer.concat(parts));
}

/** Whether `signature` is standard base64, padded, of exactly 64 bytes, in its one canonical spelling. */
export function canonicalSignature(signature: string): boolean {
  return (
    /^[A-Za-z0-9+/]{86}==$/.test(signature) &&
    Buffer.from(signature, "base64").toString("base64") === signature
  );
}

/** The problems of one kind a bundle report keeps and prints; the rest are counted (docs/evidence-format.md). */
export const MAX_PROBLEMS_PER_KIND = 20;

/**
 * A bundle's problems, bounded: the first `MAX_PROBLEMS_PER_KIND` of each kind kept, the rest only
 * counted, so a file of a million bad lines costs neither a million sentences of memory nor of output.
 */
export class BundleProblems {
  private readonly kept: string[] = [];
  private readonly counts = new Map<string, number>();
  private all = 0;

  /** Records one problem of `kind` (a short noun, e.g. "line not JSON"). */
  add(kind: string, problem: string): void {
    const count = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, count);
    this.all += 1;
    if (count <= MAX_PROBLEMS_PER_KIND) this.kept.push(problem);
  }

  /** How many problems were found, kept or not. */
  get total(): number {
    return this.all;
  }

  /** How many problems were counted but not kept. */
  get omitted(): number {
    return this.all - this.kept.length;
  }

  /** The problems kept, first found first, then one "and N more" sentence per kind cut short. */
  list(): string[] {
    const more: string[] = [];
    for (const [kind, count] of this.counts)
      if (count > MAX_PROBLEMS_PER_KIND)
        more.push(`and ${count - MAX_PROBLEMS_PER_KIND} more problems of this kind: ${kind}`);
    return [...this.kept, ...more];
  }
}

/**
 * The one spelling of a seal line: `{"kind":"seal","lines":…,"digest":…,"signature":…}` as
 * `JSON.stringify` writes it (no spaces, no other members), ended by one line feed. `raes export`
 * writes it; `raes verify FILE` accepts no other bytes, so no member can ride on a signed bundle unsigned.
 */
export function sealLine(seal: { lines?: unknown; digest?: unknown; signature?: unknown }): string {
  return `${JSON.stringify({ kind: "seal", lines: seal.lines, digest: seal.digest, signature: seal.signature })}\n`;
}

/** The members each kind of line has, and no other (docs/evidence-bundle.schema.json). */
const LINE_MEMBERS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    header: ["format", "raes_ts_version", "created_at"],
    chain: [
      "participant_address",
      "scenario_digest",
      "manifest_digest",
      "head_digest",
      "head_sequence",
      "events",
      "backfilled_at",
    ],
    operator_chain: ["head_digest", "head_sequence", "decisions"],
    event: ["event"],
    decision: ["decision"],
    operation: ["operation"],
    seed_fingerprint: ["participant_address", "policy_address", "stream_fingerprint"],
    input: ["role", "name", "digest", "base64"],
    seal: ["lines", "digest", "signature"],
  }).map(([kind, members]) => [kind, new Set(["kind", ...members])]),
);

/** Every string token of a JSON text, with the colon that makes it a member name (matched from a string's start only). */
const STRING_TOKENS = /"(?:[^"\\]|\\.)*"(\s*:)?/g;

/**
 * What is wrong with a parsed line's members, or undefined: a member its kind does not have (an
 * unknown kind is named elsewhere), or a key repeated in any object of it. A repeat is found by
 * counting: the member names the text spells against the members the parsed value holds (JSON.parse
 * keeps one of each), so a line is scanned once by a native regex, not by a parser of ours.
 */
export function lineMemberProblem(text: string, value: Record<string, unknown>): string | undefined {
  const allowed = LINE_MEMBERS.get(String(value.kind));
  if (allowed !== undefined) {
    const extra = Object.keys(value).filter((key) => !allowed.has(key));
    if (extra.length > 0)
      return `a "${String(value.kind)}" line has no member ${extra.map((k) => JSON.stringify(k)).join(", ")}`;
  }
  let spelled = 0;
  for (const match of text.matchAll(STRING_TOKENS)) if (match[1] !== undefined) spelled += 1;
  if (spelled !== memberCount(value)) return "an object in the line repeats a key";
  return undefined;
}

/** The members of every object in a parsed JSON value; iterative, so a value nested deep is no stack overflow. */
function memberCount(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== "object" || next === null) continue;
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
      continue;
    }
    for (const key in next) {
      count += 1;
      pending.push((next as Record<string, unknown>)[key]);
    }
  }
  return count;
}
