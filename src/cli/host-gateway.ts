import { compileScenario } from "../compiler/index.js";
import { readInputFile } from "../input/index.js";
import { checkManifestFile } from "../manifest/index.js";
import type { CallStages, HttpAddress, ToolMap } from "../mcp/index.js";
import { DEFAULT_STORE_URL, MEMORY_STORE_URL } from "../records/index.js";
import { hasErrors, loadScenario } from "../sdl/index.js";
import { CliErrorCode, ExitCode, printError, serveUntilClosed, startFailed } from "./exit.js";
import { manifestDiagnosticLine, scenarioDiagnosticLine } from "./input-files.js";
import { withStore } from "./store-option.js";

/** The options of `raes mcp-gateway` in host mode, as parsed and checked by the command. */
export interface HostGatewayOptions {
  readonly scenario: string;
  readonly manifest: string;
  readonly participant?: string;
  readonly store?: string;
  readonly map: ToolMap;
  readonly upstream: { readonly command: string; readonly args: readonly string[] };
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly idleTimeoutSeconds: number;
  readonly http?: { readonly listen: HttpAddress; readonly allowRemote: boolean; readonly bearer?: string };
  readonly say: (line: string) => void;
  readonly onStages?: (stages: CallStages) => void;
  /** SIGINT or SIGTERM (`stopOnSignals`): a start under way gives up, a serving gateway closes. */
  readonly signal: AbortSignal;
}

/**
 * Runs host mode: loads the scenario and manifest as `raes run` does, picks the participant, and
 * serves until the client hangs up (stdio) or a signal (HTTP); resolves to the exit code.
 */
export async function runHostGateway(options: HostGatewayOptions): Promise<number> {
  const { say } = options;
  const { scenario, diagnostics } = loadScenario(options.scenario);
  // Printed as raes run and raes config mcp-host print them, each file's findings then one coded line.
  for (const d of diagnostics.filter((x) => x.severity === "error"))
    process.stderr.write(`${scenarioDiagnosticLine(options.scenario, d)}\n`);
  if (!scenario || hasErrors(diagnostics)) {
    printError(CliErrorCode.scenario_invalid, `${options.scenario}: the scenario has errors; nothing served`);
    return ExitCode.usage;
  }
  const model = compileScenario(scenario);
  const check = await checkManifestFile(options.manifest, model);
  for (const d of check.diagnostics) process.stderr.write(`${manifestDiagnosticLine(options.manifest, d)}\n`);
  if (!check.ok) {
    printError(CliErrorCode.manifest_invalid, `${options.manifest}: the manifest has errors; nothing served`);
    return ExitCode.usage;
  }
  const read = readInputFile(options.manifest, 1_000_000);
  if (!read.ok) {
    say(read.message);
    return ExitCode.usage;
  }
  const { hostMapProblems, hostParticipant, startHost } = await import("../host/index.js");
  const chosen = hostParticipant(model, options.participant);
  if ("problem" in chosen) {
    printError(CliErrorCode.usage, chosen.problem);
    return ExitCode.usage;
  }
  const unbound = hostMapProblems(model, chosen.participant, options.map);
  for (const problem of unbound) printError(CliErrorCode.usage, problem);
  if (unbound.length > 0) return ExitCode.usage;
  const store = options.store ?? DEFAULT_STORE_URL;
  // A held call is decided from another process (raes approve, the console), which a memory: store,
  // living only in this one, never reaches: every held call would wait out its timeout, then be withheld.
  const held = [...options.map.tools.entries()].filter(([, entry]) => entry.approval !== undefined);
  if (store === MEMORY_STORE_URL && held.length > 0) {
    printError(
      CliErrorCode.usage,
      `map tool ${held.map(([name]) => name).join(", ")} holds calls for approval, decided from another process (raes approve), which cannot reach a memory: store: name a sqlite: or postgres:// store with --store`,
    );
    return ExitCode.usage;
  }
  // Opened (created and migrated, as raes run opens it) and closed before anything is served: a
  // --store that is not a store, or that does not answer, is refused now with its own code and exit
  // status (thrown to the CLI, which prints and exits as for raes run), not on every tool call.
  await withStore(store, async () => undefined);
  if (options.signal.aborted) return ExitCode.ok;
  let host: Awaited<ReturnType<typeof startHost>>;
  try {
    host = await startHost({
      model,
      manifest: JSON.parse(read.text) as unknown,
      participant: chosen.participant,
      store,
      map: options.map,
      upstream: { ...options.upstream, env: options.env },
      timeoutMs: options.timeoutMs,
      idleMs: options.idleTimeoutSeconds * 1000,
      log: say,
      signal: options.signal,
      ...(options.onStages ? { onStages: options.onStages } : {}),
      ...(options.http
        ? {
            http: {
              listen: options.http.listen,
              allowRemote: options.http.allowRemote,
              ...(options.http.bearer === undefined ? {} : { bearerToken: options.http.bearer }),
            },
          }
        : {}),
    });
  } catch (error) {
    return startFailed("the gateway did not start", error, options.signal, say);
  }
  say(
    `host mode: running ${chosen.participant} on ${store}${host.url ? `; serving MCP (Streamable HTTP) at ${host.url}` : ""}`,
  );
  return serveUntilClosed(host, options.signal);
}
