import type { CallStages, HttpAddress, ToolMap } from "../mcp/index.js";
import { DEFAULT_STORE_URL, MEMORY_STORE_URL } from "../records/index.js";
import { CliErrorCode, ExitCode, printError, serveUntilClosed, startFailed } from "./exit.js";
import { hostParticipantFor, readRunInputs } from "./run-inputs.js";
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
  // Read and printed as raes run and raes config mcp-host read them (src/cli/run-inputs.ts).
  const inputs = await readRunInputs(options.scenario, options.manifest, "nothing served");
  if ("exit" in inputs) return inputs.exit;
  const { model } = inputs;
  const chosen = await hostParticipantFor(model, options.participant, options.map);
  if ("exit" in chosen) return chosen.exit;
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
  const { startHost } = await import("../host/index.js");
  let host: Awaited<ReturnType<typeof startHost>>;
  try {
    host = await startHost({
      model,
      manifest: inputs.manifest,
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
