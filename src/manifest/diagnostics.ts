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
