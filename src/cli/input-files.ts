import { InvalidArgumentError } from "commander";
import { nonRegularInputFile } from "../input/index.js";
import type { ManifestDiagnostic } from "../manifest/index.js";
import type { Diagnostic } from "../sdl/index.js";

/**
 * Option and argument parser for a file the command reads: a FIFO, device, directory or socket is a
 * usage error (exit 2) before anything opens it, since reading one can block or never end.
 */
export function inputFile(value: string): string {
  const refused = nonRegularInputFile(value);
  if (refused !== undefined) throw new InvalidArgumentError(`${refused}; give a file`);
  return value;
}

/** Option parser for a file the command writes: an existing FIFO, device or directory is a usage error. */
export function outputFile(value: string): string {
  const refused = nonRegularInputFile(value);
  if (refused !== undefined) throw new InvalidArgumentError(`${refused}; give a file path to write`);
  return value;
}

/** A scenario's error as every command prints it: `FILE:LINE:COL: error CODE message`. */
export function scenarioDiagnosticLine(file: string, d: Diagnostic): string {
  return `${file}:${d.line}:${d.column}: error ${d.code} ${d.message}`;
}

/** A manifest's finding as every command prints it: `FILE: SEVERITY CODE [PATH] message` (no PATH for the whole file). */
export function manifestDiagnosticLine(file: string, d: ManifestDiagnostic): string {
  return `${file}: ${d.severity} ${d.code}${d.path === "" ? "" : ` ${d.path}`} ${d.message}`;
}
