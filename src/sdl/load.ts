import { existsSync } from "node:fs";
import { capPerCode, InputFileRefusal, readInputFile } from "../input/index.js";
import { validateScenario } from "./check/index.js";
import { DiagnosticCode } from "./codes.js";
import type { Diagnostic, Finding } from "./diagnostics.js";
import { DiagnosticSink } from "./diagnostics.js";
import type { Scenario } from "./schema/index.js";
import { decodeScenario } from "./schema/index.js";
import { DEFAULT_SOURCE_LIMITS, parseSource, type SourceLimits } from "./source.js";

/** How `loadScenario` reads its input. */
export interface LoadOptions {
  /** `path` or `text` forces how the argument is read; `auto` (default) treats a one-line `.yaml`/`.yml` name or an existing file as a path. */
  readonly source?: "auto" | "path" | "text";
  /** Overrides for the byte, alias and expanded-node limits. */
  readonly limits?: Partial<SourceLimits>;
  /** A file name to put on diagnostics when loading text. */
  readonly file?: string;
}

/** What `loadScenario` returns: the scenario (absent when any finding is an error) and every finding. */
export interface LoadResult {
  readonly scenario: Scenario | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

const AT_START = { locate: () => ({ line: 1, column: 1 }) };

function looksLikePath(value: string): boolean {
  if (value.includes("\n")) return false;
  return /\.(ya?ml|json)$/i.test(value) || existsSync(value);
}

/** Loads, shape-checks and semantically validates a RAES scenario from a path or YAML text; never throws on bad input. */
export function loadScenario(pathOrText: string, options: LoadOptions = {}): LoadResult {
  const limits: SourceLimits = { ...DEFAULT_SOURCE_LIMITS, ...options.limits };
  const mode = options.source ?? "auto";
  const isPath = mode === "path" || (mode === "auto" && looksLikePath(pathOrText));
  const file = isPath ? pathOrText : options.file;
  let text: string;
  if (isPath) {
    const read = readScenarioFile(pathOrText, limits.maxBytes);
    if (typeof read !== "string") return { scenario: undefined, diagnostics: [read] };
    text = read;
  } else {
    text = pathOrText;
  }
  return loadText(text, limits, file);
}

function readScenarioFile(path: string, maxBytes: number): string | Diagnostic {
  const failure = (code: DiagnosticCode, message: string): Diagnostic => {
    const sink = new DiagnosticSink(AT_START, path);
    sink.report({ code, message, path: "" });
    return sink.diagnostics[0] as Diagnostic;
  };
  const read = readInputFile(path, maxBytes);
  if (read.ok) return read.text;
  if (read.refusal === InputFileRefusal.not_regular)
    return failure(DiagnosticCode.fileNotRegular, read.message);
  if (read.refusal === InputFileRefusal.too_large) {
    return failure(DiagnosticCode.sourceLimit, `the source is larger than the limit of ${maxBytes} bytes`);
  }
  return failure(DiagnosticCode.fileUnreadable, `cannot read scenario file: ${read.message}`);
}

/** Codes RAES reports at its source stage, before the model is built. */
const SOURCE_STAGE: ReadonlySet<string> = new Set([DiagnosticCode.noncanonicalField]);

const isError = (finding: Finding) => (finding.severity ?? "error") === "error";

/**
 * RAES judges in stages (source, model, semantics) and stops at the first stage with an error, so a
 * structural error is never followed by semantic errors about the entry that failed to load.
 */
function loadText(text: string, limits: SourceLimits, file: string | undefined): LoadResult {
  const parsed = parseSource(text, limits);
  const sink = new DiagnosticSink(parsed.locator, file);
  for (const finding of parsed.findings) sink.report(finding);
  let scenario: Scenario | undefined;
  if (parsed.value !== undefined) {
    const model: Finding[] = [];
    scenario = decodeScenario(parsed.value, { report: (finding) => model.push(finding) });
    const sourceStop = model.some((finding) => isError(finding) && SOURCE_STAGE.has(finding.code));
    for (const finding of model) {
      if (!sourceStop || !isError(finding) || SOURCE_STAGE.has(finding.code)) sink.report(finding);
    }
    const structural = parsed.findings.some(isError) || model.some(isError);
    if (scenario !== undefined && !structural) validateScenario(scenario, (finding) => sink.report(finding));
  }
  const diagnostics = sink.diagnostics
    .map((diagnostic, order) => ({ diagnostic, order }))
    .sort(
      (a, b) =>
        a.diagnostic.line - b.diagnostic.line ||
        a.diagnostic.column - b.diagnostic.column ||
        a.order - b.order,
    )
    .map(({ diagnostic }) => diagnostic);
  // The parser's own syntax errors are already bounded by their count; every other code gets 20 lines.
  const syntaxOnly =
    parsed.value === undefined && parsed.findings.every((f) => f.code === DiagnosticCode.parse);
  // A scenario with errors is never handed out as usable; the diagnostics say why.
  const usable = diagnostics.some((d) => d.severity === "error") ? undefined : scenario;
  if (syntaxOnly) return { scenario: usable, diagnostics };
  return {
    scenario: usable,
    diagnostics: capPerCode(diagnostics),
  };
}
