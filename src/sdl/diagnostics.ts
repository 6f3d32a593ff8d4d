import type { DiagnosticCode, Severity } from "./codes.js";

/** One finding about a scenario, anchored to its source. Line and column are 1-based. */
export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly message: string;
  /** JSON pointer into the authored document (`""` is the root). */
  readonly path: string;
  readonly line: number;
  readonly column: number;
  /** The file the scenario was loaded from, when it was loaded from a path. */
  readonly file?: string;
}

/** Where a finding points: at a mapping key (unknown or misnamed keys) or at the value. */
export type Anchor = "key" | "value";

/** Maps JSON pointers to 1-based source positions. */
export interface SourceLocator {
  locate(pointer: string, anchor: Anchor): { line: number; column: number };
}

/** A finding before it is anchored to a line and column. */
export interface Finding {
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly path: string;
  readonly severity?: Severity;
  readonly anchor?: Anchor;
  /** An explicit position, for findings (syntax errors, repeated keys) the pointer cannot place. */
  readonly at?: { readonly line: number; readonly column: number };
  /** Set on a value of the wrong YAML type, so a union shape can try its next member. */
  readonly typeMismatch?: boolean;
}

/** Collects findings and anchors each one through a source locator. */
export class DiagnosticSink {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    private readonly locator: SourceLocator,
    private readonly file: string | undefined,
  ) {}

  /** Records one finding (an error unless it says otherwise). */
  report(finding: Finding): void {
    const { line, column } = finding.at ?? this.locator.locate(finding.path, finding.anchor ?? "value");
    const diagnostic: Diagnostic = {
      code: finding.code,
      severity: finding.severity ?? "error",
      message: finding.message,
      path: finding.path,
      line,
      column,
      ...(this.file === undefined ? {} : { file: this.file }),
    };
    this.diagnostics.push(diagnostic);
  }
}

/** Escapes one JSON-pointer token. */
export function pointerToken(token: string | number): string {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Appends tokens to a JSON pointer. */
export function joinPointer(base: string, ...tokens: readonly (string | number)[]): string {
  let out = base;
  for (const token of tokens) out += `/${pointerToken(token)}`;
  return out;
}

/** True when any diagnostic is an error. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((diagnostic) => diagnostic.severity === "error");
}

/** Renders one diagnostic as `file:line:col: severity code message`. */
export function formatDiagnostic(diagnostic: Diagnostic, fallbackFile = "<input>"): string {
  const file = diagnostic.file ?? fallbackFile;
  return `${file}:${diagnostic.line}:${diagnostic.column}: ${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`;
}
