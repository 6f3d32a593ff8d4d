import { isAddress } from "../compiler/index.js";
import { ManifestDiagnosticCode, ManifestSeverity } from "./codes.js";
import type { ManifestDiagnostic } from "./types.js";

/** Builds a JSON pointer from path segments (RFC 6901 escaping). */
export function pointer(...segments: readonly (string | number)[]): string {
  return segments
    .map((segment) => `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`)
    .join("");
}

/** Collects every diagnostic of one check, and counts those that break the document's shape. */
export class DiagnosticSink {
  readonly diagnostics: ManifestDiagnostic[] = [];
  #shapeErrors = 0;

  /** Records an error. */
  error(code: ManifestDiagnosticCode, path: string, message: string): void {
    this.diagnostics.push({ code, severity: ManifestSeverity.error, message, path });
  }

  /** Records a warning. */
  warning(code: ManifestDiagnosticCode, path: string, message: string): void {
    this.diagnostics.push({ code, severity: ManifestSeverity.warning, message, path });
  }

  /** Records an error that leaves the parsed manifest incomplete. */
  shape(code: ManifestDiagnosticCode, path: string, message: string): void {
    this.#shapeErrors += 1;
    this.error(code, path, message);
  }

  /** True when no shape error was recorded, so the parsed manifest is complete. */
  get shapeIsSound(): boolean {
    return this.#shapeErrors === 0;
  }

  /** True when no error was recorded. */
  get ok(): boolean {
    return this.diagnostics.every((diagnostic) => diagnostic.severity !== ManifestSeverity.error);
  }
}

/** Reports every value that occurs more than once in a list that must be unique. */
export function reportDuplicates(
  sink: DiagnosticSink,
  values: readonly string[],
  pathOf: (index: number) => string,
  what: string,
): void {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (seen.has(value)) {
      sink.error(ManifestDiagnosticCode.duplicate_value, pathOf(index), `${what} '${value}' is listed twice`);
    }
    seen.add(value);
  });
}

/** True when value is a compiled address as RAES requires for capabilities: at least two segments. */
export function isCompiledAddress(value: string): boolean {
  return value.includes(".") && isAddress(value);
}

/** The most values one diagnostic message lists; the rest are counted. */
export const MAX_LISTED_VALUES = 20;

/**
 * Values joined by ", ", the first `MAX_LISTED_VALUES` of them and then "and N more", so a message about
 * a list read from input stays bounded whatever the list's length.
 */
export function listCapped(values: readonly string[]): string {
  if (values.length <= MAX_LISTED_VALUES) return values.join(", ");
  return `${values.slice(0, MAX_LISTED_VALUES).join(", ")} and ${values.length - MAX_LISTED_VALUES} more`;
}

/** The largest of numbers, or `floor` when there are none; a loop, since a spread of many arguments overflows the stack. */
export function largest(values: Iterable<number>, floor = Number.NEGATIVE_INFINITY): number {
  let most = floor;
  for (const value of values) if (value > most) most = value;
  return most;
}
