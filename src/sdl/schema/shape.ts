import { DiagnosticCode } from "../codes.js";
import type { Finding } from "../diagnostics.js";
import { joinPointer } from "../diagnostics.js";
import { isPortableIdentifier } from "../identifier.js";

/** Receives the findings a decoder makes. */
export interface DecodeContext {
  report(finding: Finding): void;
}

/** A closed-shape decoder: checks a plain YAML value and returns the typed value, or `undefined` when invalid. */
export interface Shape<T> {
  /** How the expected value is named in messages ("a string", "a list"). */
  readonly expected: string;
  decode(raw: unknown, pointer: string, ctx: DecodeContext): T | undefined;
}

/** The decoded type of a shape. */
export type Infer<S> = S extends Shape<infer T> ? T : never;

function describe(raw: unknown): string {
  if (raw === null) return "null";
  if (Array.isArray(raw)) return "a list";
  if (typeof raw === "object") return "a mapping";
  if (typeof raw === "number") return Number.isInteger(raw) ? "an integer" : "a number";
  if (typeof raw === "boolean") return "a boolean";
  if (typeof raw === "string") return "a string";
  return typeof raw;
}

function wrongType(ctx: DecodeContext, pointer: string, expected: string, raw: unknown): undefined {
  ctx.report({
    code: DiagnosticCode.modelInvalid,
    message: `expected ${expected}, got ${describe(raw)}`,
    path: pointer,
    typeMismatch: true,
  });
  return undefined;
}

/** True for a plain YAML mapping. */
export function isMapping(raw: unknown): raw is Record<string, unknown> {
  return raw !== null && typeof raw === "object" && !Array.isArray(raw);
}

/** Options for a string field. */
export interface TextOptions {
  readonly nonEmpty?: boolean;
  readonly oneOf?: readonly string[];
  readonly identifier?: boolean;
}

/** A string; optionally non-blank, one of a fixed set, or a portable identifier. */
export function text(options: TextOptions = {}): Shape<string> {
  return {
    expected: "a string",
    decode(raw, pointer, ctx) {
      if (typeof raw !== "string") {
        // RAES's identifier type rejects any non-string as an identifier error, not a type error.
        if (!options.identifier) return wrongType(ctx, pointer, "a string", raw);
        const message = `expected a portable identifier, got ${describe(raw)}`;
        ctx.report({ code: DiagnosticCode.identifierInvalid, message, path: pointer, typeMismatch: true });
        return undefined;
      }
      if (options.nonEmpty && raw.trim() === "") {
        ctx.report({ code: DiagnosticCode.modelInvalid, message: "must not be empty", path: pointer });
        return undefined;
      }
      if (options.oneOf && !options.oneOf.includes(raw)) {
        const message = `'${raw}' is not one of ${options.oneOf.join(", ")}`;
        ctx.report({ code: DiagnosticCode.modelInvalid, message, path: pointer });
        return undefined;
      }
      if (options.identifier && !isPortableIdentifier(raw)) {
        const message = `'${raw}' is not a portable identifier ([a-z0-9][a-z0-9_-]{0,63})`;
        ctx.report({ code: DiagnosticCode.identifierInvalid, message, path: pointer });
        return undefined;
      }
      return raw;
    },
  };
}

/** One of a fixed set of strings, typed as that set. */
export function choice<const T extends string>(values: readonly T[]): Shape<T> {
  const inner = text({ oneOf: values });
  return {
    expected: inner.expected,
    decode: (raw, pointer, ctx) => inner.decode(raw, pointer, ctx) as T | undefined,
  };
}

/** Options for an integer field. */
export interface IntegerOptions {
  readonly min?: number;
  readonly max?: number;
}

/** An integer within optional bounds. */
export function integer(options: IntegerOptions = {}): Shape<number> {
  return {
    expected: "an integer",
    decode(raw, pointer, ctx) {
      if (typeof raw !== "number" || !Number.isInteger(raw))
        return wrongType(ctx, pointer, "an integer", raw);
      const tooLow = options.min !== undefined && raw < options.min;
      const tooHigh = options.max !== undefined && raw > options.max;
      if (tooLow || tooHigh) {
        const bound = tooLow ? `at least ${options.min}` : `at most ${options.max}`;
        ctx.report({ code: DiagnosticCode.modelInvalid, message: `${raw} must be ${bound}`, path: pointer });
        return undefined;
      }
      return raw;
    },
  };
}

/** A boolean. */
export function bool(): Shape<boolean> {
  return {
    expected: "a boolean",
    decode: (raw, pointer, ctx) =>
      typeof raw === "boolean" ? raw : wrongType(ctx, pointer, "a boolean", raw),
  };
}

/** Any value, kept as authored. */
export function opaque(): Shape<unknown> {
  return { expected: "any value", decode: (raw) => raw };
}

/** `null` or the inner shape. */
export function nullable<T>(inner: Shape<T>): Shape<T | null> {
  return {
    expected: `${inner.expected} or null`,
    decode: (raw, pointer, ctx) => (raw === null ? null : inner.decode(raw, pointer, ctx)),
  };
}

/** The first of two shapes whose type matches the value; a value of neither type is a type error. */
export function either<A, B>(first: Shape<A>, second: Shape<B>): Shape<A | B> {
  const expected = `${first.expected} or ${second.expected}`;
  return {
    expected,
    decode(raw, pointer, ctx) {
      for (const shape of [first, second] as const) {
        const probe: Finding[] = [];
        const value = shape.decode(raw, pointer, { report: (finding) => probe.push(finding) });
        if (probe.length === 0) return value;
        if (probe.some((finding) => finding.typeMismatch !== true)) {
          for (const finding of probe) ctx.report(finding);
          return undefined;
        }
      }
      return wrongType(ctx, pointer, expected, raw);
    },
  };
}

/** Options for a list. */
export interface ListOptions {
  readonly unique?: boolean;
  /** Drop a repeated entry silently, keeping the first (RAES de-duplicates these lists). */
  readonly dedupe?: boolean;
  readonly minItems?: number;
}

/** A list; invalid items are reported and dropped. */
export function list<T>(item: Shape<T>, options: ListOptions = {}): Shape<readonly T[]> {
  return {
    expected: "a list",
    decode(raw, pointer, ctx) {
      if (!Array.isArray(raw)) return wrongType(ctx, pointer, "a list", raw);
      if (options.minItems !== undefined && raw.length < options.minItems) {
        const message = `needs at least ${options.minItems} item${options.minItems === 1 ? "" : "s"}`;
        ctx.report({ code: DiagnosticCode.modelInvalid, message, path: pointer });
      }
      const out: T[] = [];
      const seen = new Set<unknown>();
      raw.forEach((entry, index) => {
        const at = joinPointer(pointer, index);
        const value = item.decode(entry, at, ctx);
        if (value === undefined) return;
        if (options.dedupe && seen.has(value)) return;
        if (options.unique && seen.has(value)) {
          ctx.report({
            code: DiagnosticCode.modelInvalid,
            message: `'${String(value)}' is repeated`,
            path: at,
          });
          return;
        }
        seen.add(value);
        out.push(value);
      });
      return out;
    },
  };
}

/** Options for a record. */
export interface RecordOptions {
  /** Set when RAES treats the keys as structural, not literal names: it reports a non-canonical key (a source error). */
  readonly noncanonical?: (key: string, at: string, ctx: DecodeContext) => boolean;
  /** The fewest entries allowed. */
  readonly minEntries?: number;
}

/** A mapping from declared names (portable identifiers) to values. */
export function record<T>(value: Shape<T>, options: RecordOptions = {}): Shape<Readonly<Record<string, T>>> {
  return {
    expected: "a mapping",
    decode(raw, pointer, ctx) {
      if (!isMapping(raw)) return wrongType(ctx, pointer, "a mapping", raw);
      const out: Record<string, T> = Object.create(null);
      if (options.minEntries !== undefined && Object.keys(raw).length < options.minEntries) {
        const message = `needs at least ${options.minEntries} entr${options.minEntries === 1 ? "y" : "ies"}`;
        ctx.report({ code: DiagnosticCode.modelInvalid, message, path: pointer });
      }
      for (const [key, entry] of Object.entries(raw)) {
        const at = joinPointer(pointer, key);
        if (options.noncanonical?.(key, at, ctx)) continue;
        if (!isPortableIdentifier(key)) {
          const message = `'${key}' is not a portable identifier ([a-z0-9][a-z0-9_-]{0,63})`;
          ctx.report({ code: DiagnosticCode.identifierInvalid, message, path: at, anchor: "key" });
          continue;
        }
        const decoded = value.decode(entry, at, ctx);
        if (decoded !== undefined) out[key] = decoded;
      }
      return out;
    },
  };
}
