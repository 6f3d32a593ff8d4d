/** Process exit codes every `raes` command uses. */
export const ExitCode = {
  /** The command did what was asked and found nothing wrong; after a run, every scheduler is running or completed. */
  ok: 0,
  /**
   * The command ran and reports findings: a scheduler stopped or an operator is needed (each stop prints
   * its next step), scenario or manifest errors, an unknown operation, a refused decision.
   */
  findings: 1,
  /**
   * The command line was wrong: a bad option, a file it names that cannot be read, a store that does not
   * exist or is not a store, a part of an operation id that names several, or an option that needs
   * an optional package that is not installed.
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
  /**
   * `raes run`, host mode, `raes config mcp-host`: the scenario has errors (each printed before with its
   * own code); nothing ran, nothing was served, no block was printed. Exit 1; 2 when it could not be read.
   */
  scenario_invalid: "cli.scenario-invalid",
  /**
   * `raes run`, host mode, `raes config mcp-host`: the manifest has errors (each printed before with its
   * own code); nothing ran, nothing was served, no block was printed. Exit 1; 2 when it could not be read.
   */
  manifest_invalid: "cli.manifest-invalid",
  /**
   * `raes run --runtime MODULE`: the module's default export is not a runtime class or factory
   * function, it built no runtime object, or it could not be imported (a syntax error, a missing
   * dependency, tsx missing for a TypeScript module); nothing ran (exit 2).
   */
  runtime_module_invalid: "cli.runtime-module-invalid",
  /**
   * `raes config mcp-host`: the upstream command is not found on `PATH` (a bare name) or is not an
   * executable file (a name with a `/`), so the host could not start it; no block was printed (exit 2).
   */
  upstream_command_not_found: "cli.upstream-command-not-found",
  /** `raes run`: every participant is owned by another live runtime, so this process can take none. */
  no_participant_free: "cli.no-participant-free",
  /** `raes run`: an invocation failed for a runtime error (the harness threw or answered an invalid result). */
  invocation_failed: "cli.invocation-failed",
  /** `raes mcp-gateway`: the invocation's tool-action port could not be reached or refused the token. */
  port_unreachable: "cli.port-unreachable",
  /** `raes mcp-gateway`: the upstream MCP server (or the HTTP listener) did not start. */
  upstream_not_started: "cli.upstream-not-started",
  /**
   * `raes verify`: the store was written before history chains (schema step 13) and holds none to
   * check; it is left as it is (verify never migrates the store it audits).
   */
  store_unchained: "cli.store-unchained",
} as const;
/** A CLI error code. */
export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/**
 * Prints an error line on stderr as every command does: `raes: CODE: message`, so scripts match it by
 * its code (`docs/reference/codes.md`).
 */
export function printError(code: string, message: string): void {
  process.stderr.write(`raes: ${code}: ${message}\n`);
}

/**
 * The code a gateway that did not start prints: the error's own raes-ts code (`domain.kebab`, e.g.
 * `mcp-upstream.line-too-long`, `store.lease-lost`) when it has one, else `cli.upstream-not-started`.
 */
export function startFailureCode(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" && /^[a-z][a-z0-9-]*\.[a-z0-9-]+$/.test(code)
    ? code
    : CliErrorCode.upstream_not_started;
}

/**
 * The exit code of a gateway whose start failed: 0 when `stop` aborted it (a signal; the upstream is
 * closed and nothing ran, so `say` tells the log why), else 1 after the start failure's error line.
 */
export function startFailed(
  what: string,
  error: unknown,
  stop: AbortSignal,
  say: (line: string) => void,
): ExitCode {
  if (stop.aborted) {
    say("a signal stopped the gateway before it served; the upstream is closed");
    return ExitCode.ok;
  }
  printError(startFailureCode(error), `${what}: ${error instanceof Error ? error.message : String(error)}`);
  return ExitCode.findings;
}

/** Prints a value as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** `1 error`, `2 errors`: a count with its noun. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/**
 * SIGINT and SIGTERM, from the moment a long-running command starts, as one signal: a command that
 * is still starting gives up (its upstream closed) and one that serves closes. Only the first is
 * taken: a second SIGINT or SIGTERM runs `beforeForced` (the gateway kills its upstreams' process
 * groups, which no signal to its own reaches) and ends the process at once, by that signal, as Node
 * does by default. `dispose` lets go.
 */
export function stopOnSignals(beforeForced?: () => void): {
  readonly signal: AbortSignal;
  dispose(): void;
} {
  const stop = new AbortController();
  const dispose = () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSecond);
    process.off("SIGTERM", onSecond);
  };
  // A second signal ends the process at once, as it would with no handler, after `beforeForced`.
  const onSecond = (name: NodeJS.Signals) => {
    dispose();
    beforeForced?.();
    process.kill(process.pid, name);
  };
  const onSignal = () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.once("SIGINT", onSecond);
    process.once("SIGTERM", onSecond);
    stop.abort(new Error("a signal stopped the command"));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return { signal: stop.signal, dispose };
}

/**
 * Serves until `server` closes, closing it once `stop` aborts (default: on SIGINT or SIGTERM, see
 * `stopOnSignals`), then answers exit 0: how every long-running command ends.
 */
export async function serveUntilClosed(
  server: {
    readonly closed: Promise<void>;
    close(): Promise<void>;
  },
  stop?: AbortSignal,
): Promise<number> {
  if (stop === undefined) {
    const signals = stopOnSignals();
    try {
      return await serveUntilClosed(server, signals.signal);
    } finally {
      signals.dispose();
    }
  }
  const onStop = () => void server.close();
  if (stop.aborted) onStop();
  else stop.addEventListener("abort", onStop, { once: true });
  try {
    await server.closed;
  } finally {
    stop.removeEventListener("abort", onStop);
  }
  return ExitCode.ok;
}

/**
 * The line a failed command prints: `raes: CODE: message`, so scripts can match every error by its
 * code (`docs/reference/codes.md`). A Node system error's message already leads with its code
 * (`ENOENT: no such file…`), so it is not repeated.
 */
export function errorLine(coded: string | undefined, error: unknown): string {
  const code = coded ?? CliErrorCode.uncoded;
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith(`${code}: `) ? `raes: ${message}` : `raes: ${code}: ${message}`;
}
