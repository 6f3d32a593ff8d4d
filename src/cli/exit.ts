/** Process exit codes every `raes` command uses. */
export const ExitCode = {
  /** The command did what was asked and found nothing wrong. */
  ok: 0,
  /** The command ran and reports findings, or a participant's scheduler stopped. */
  findings: 1,
  /**
   * The command line was wrong: a bad option, a file it names that cannot be read, a store that does not
   * exist, or an option that needs an optional package that is not installed.
   */
  usage: 2,
} as const;
/** A `raes` exit code. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Codes of the CLI's own errors (`docs/reference/codes.md`). */
export const CliErrorCode = {
  /** An error that carries no code of its own reached the command line: a defect, or a library's plain error. */
  uncoded: "cli.uncoded-error",
  /** The command line itself was wrong: an unknown command or option, a missing or invalid argument. */
  usage: "cli.usage",
  /** `--otlp` was given and the OTLP exporter, an optional package, is not installed. */
  otlp_exporter_missing: "cli.otlp-exporter-missing",
} as const;
/** A CLI error code. */
export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** Prints a value as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** `1 error`, `2 errors`: a count with its noun. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
