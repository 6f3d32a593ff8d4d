import { type Command, CommanderError, InvalidArgumentError } from "commander";
import { compileScenario, type RuntimeModel } from "../../compiler/index.js";
import { readInputFile } from "../../input/index.js";
import { checkManifestFile } from "../../manifest/index.js";
import {
  type PacedRunSummary,
  parseStochasticControl,
  RuntimeManager,
  type StochasticControl,
} from "../../runtime/index.js";
import { loadScenario } from "../../sdl/index.js";
import type { SchedulerRecord } from "../../store/index.js";
import {
  buildRuntime,
  collectUpstream,
  DEFAULT_AGENT_LOGS,
  type RuntimeChoice,
  runtimeChoiceProblem,
} from "../agent-runtime.js";
import { ExitCode, printJson } from "../exit.js";
import { inputFile } from "../input-files.js";
import { installOtlp, otlpUrl } from "../otlp.js";
import { pacingJson, pacingLine, RunProgress } from "../progress.js";
import { resolveCommands } from "../shell.js";
import { storeOption } from "../store-option.js";

interface RunOptions extends RuntimeChoice {
  readonly manifest: string;
  readonly store: string;
  readonly steps?: number;
  readonly tickMs?: number;
  readonly concurrency?: number;
  readonly json?: boolean;
  readonly stochasticControl: StochasticControl[];
}

function collectControl(value: string, previous: StochasticControl[]): StochasticControl[] {
  try {
    return [...previous, parseStochasticControl(value)];
  } catch (error) {
    // Not InvalidArgumentError: commander would echo the value, and the value holds the seed.
    const code = (error as { code?: string }).code ?? "usage";
    process.stderr.write(`raes run: --stochastic-control: ${code}: ${(error as Error).message}\n`);
    throw new CommanderError(ExitCode.usage, code, (error as Error).message);
  }
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError("use a whole number ≥ 1");
  return n;
}

function positiveMs(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > 2_147_483_647)
    throw new InvalidArgumentError("use a whole number of milliseconds ≥ 1");
  return n;
}

function fail(message: string): void {
  process.stderr.write(`raes run: ${message}\n`);
  process.exitCode = ExitCode.findings;
}

/** What a thrown value says, for one line on stderr. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function compile(path: string): RuntimeModel | undefined {
  const { scenario, diagnostics } = loadScenario(path);
  const errors = diagnostics.filter((d) => d.severity === "error");
  for (const d of errors)
    process.stderr.write(`${path}:${d.line}:${d.column}: error ${d.code} ${d.message}\n`);
  return errors.length > 0 || !scenario ? undefined : compileScenario(scenario);
}

/** `raes run`: load, validate, register the runtime and drive the clock. */
export function registerRunCommand(program: Command): void {
  storeOption(
    program
      .command("run")
      .description(
        "run a scenario's autonomous participants against a participant runtime module or an agent command",
      )
      .argument("<scenario>", "scenario YAML file", inputFile)
      .requiredOption("--manifest <file>", "backend manifest JSON", inputFile)
      .option("--runtime <module>", "module whose default export is a runtime class or factory", inputFile)
      .option(
        "--agent-command <cmd>",
        "instead of --runtime: run CMD (via /bin/sh) per invocation with RAES_MCP_CONFIG and the RAES_* environment",
      )
      .option(
        "--mcp-upstream <name=cmd>",
        "with --agent-command: an upstream MCP server, put behind raes mcp-gateway in the agent's config (repeatable)",
        collectUpstream,
      )
      .option(
        "--map <file>",
        "with --agent-command: the gateway map (MCP tool → governed tool action)",
        inputFile,
      )
      .option(
        "--agent-logs <dir>",
        `with --agent-command: per-invocation agent logs (default ${DEFAULT_AGENT_LOGS})`,
      )
      .option(
        "--steps <n>",
        "progression steps to advance the policy clock (default 1, or unlimited with --tick-ms)",
        positiveInteger,
      )
      .option(
        "--tick-ms <ms>",
        "real time: one progression step every MS ms of wall time, until Ctrl-C, --steps or every scheduler finished",
        positiveMs,
      )
      .option(
        "--concurrency <n>",
        "due participants whose invocations run at once within a step (default the manifest's max_autonomous_in_flight)",
        positiveInteger,
      )
      .option(
        "--stochastic-control <ID=NAMESPACE:SEED>",
        "an agent-policy control for v2 policies (repeatable; the seed is never stored)",
        collectControl,
        [],
      )
      .option(
        "--otlp <url>",
        "export spans with OTLP/HTTP to URL/v1/traces (e.g. http://localhost:4318)",
        otlpUrl,
      )
      .option("--json", "print the final summary as JSON"),
  ).action(async (scenarioPath: string, options: RunOptions) => {
    const otlp = options.otlp === undefined ? undefined : await installOtlp(options.otlp, "raes-ts");
    try {
      await runScenario(scenarioPath, options);
    } finally {
      await otlp?.shutdown();
    }
  });
}

async function runScenario(scenarioPath: string, options: RunOptions): Promise<void> {
  const problem = runtimeChoiceProblem(options);
  if (problem) {
    process.stderr.write(`raes run: ${problem}\n`);
    process.exitCode = ExitCode.usage;
    return;
  }
  const model = compile(scenarioPath);
  if (!model) return fail("the scenario has errors");
  const check = await checkManifestFile(options.manifest, model);
  for (const d of check.diagnostics)
    process.stderr.write(`${options.manifest}: ${d.severity} ${d.code} ${d.path} ${d.message}\n`);
  if (!check.ok) return fail("the manifest has errors");
  // Read again through the same bounded reader; the check above proved it is a small regular file.
  const read = readInputFile(options.manifest, 1_000_000);
  if (!read.ok) return fail(read.message);
  const manifest = JSON.parse(read.text) as unknown;
  const runtime = await buildRuntime(options);
  const progress = new RunProgress({
    tty: process.stdout.isTTY === true && !options.json,
    write: (text) => (options.json ? undefined : process.stdout.write(text)),
  });
  // Before open: the actions due at the start tick run inside it.
  const interrupt = new AbortController();
  const onSignal = () => {
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort();
    process.stderr.write("\nraes run: stopping after the open invocation closes (signal again to abort)\n");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // Invocations that failed for a runtime error (the harness threw or answered an invalid result),
  // as opposed to a failed native outcome: each is printed, and any makes the run exit 1.
  const errors: { invocation: string; error: string }[] = [];
  const manager = await RuntimeManager.open({
    model,
    manifest,
    runtime,
    store: options.store,
    log: (line) => process.stderr.write(`raes run: ${line}\n`),
    stochasticControls: options.stochasticControl,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    observer: {
      invocationClosed: (s) => {
        progress.invocationClosed(s);
        if (s.error === undefined) return;
        errors.push({ invocation: s.invocationId, error: String(s.error) });
        process.stderr.write(`raes run: ${s.invocationId} failed: ${messageOf(s.error)}\n`);
      },
      toolActionRefused: (code) => progress.refused(code),
    },
  });
  const owned = new Set(manager.schedulers().map((s) => s.participantAddress));
  const elsewhere = Object.values(model.autonomousPolicies)
    .flatMap((p) => p.participantAddresses)
    .filter((p) => !owned.has(p));
  for (const p of new Set(elsewhere)) {
    process.stderr.write(
      `raes run: ${p} is owned by another live runtime (its scheduler lease is held); skipping it\n`,
    );
  }
  if (owned.size === 0 && elsewhere.length > 0) {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await manager.close();
    return fail("no participant could be taken: every one is owned by a live runtime");
  }
  let paced: PacedRunSummary | undefined;
  try {
    if (options.tickMs === undefined) {
      const steps = options.steps ?? 1;
      for (let i = 0; i < steps && !interrupt.signal.aborted; i += 1) await manager.step(1);
    } else {
      paced = await manager.run({
        tickMs: options.tickMs,
        signal: interrupt.signal,
        ...(options.steps === undefined ? {} : { steps: options.steps }),
        onStep: (step) => progress.paced(step),
      });
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    progress.finish();
  }
  const schedulers = manager.schedulers();
  const stopped = schedulers.filter((s) => s.lifecycle === "stopped");
  const idle = idleLine(schedulers);
  const unresolved = await manager.store.listToolActions({ phase: "settled" });
  const indeterminate = unresolved
    .filter((a) => a.settlement === "indeterminate" && !a.resolution)
    .map((a) => a.id);
  await manager.close();
  const summary = {
    ...progress.toJSON(),
    errors,
    ...(paced ? { pacing: pacingJson(paced) } : {}),
    stopped: stopped.map((s) => ({ participant: s.participantAddress, reason: s.stopReason ?? null })),
    ...(idle ? { idle } : {}),
    resolve: indeterminate.flatMap((id) => {
      const commands = resolveCommands(id, options.store);
      return [commands.confirmed, commands.absent];
    }),
  };
  if (options.json) printJson(summary);
  else {
    process.stdout.write(`${progress.line()}\n`);
    if (paced) process.stdout.write(`${pacingLine(paced)}\n`);
    for (const s of stopped)
      process.stdout.write(`stopped: ${s.participantAddress} (${s.stopReason ?? "unknown"})\n`);
    if (idle) process.stdout.write(`${idle}\n`);
    if (summary.resolve.length > 0)
      process.stdout.write(
        "resolve each indeterminate action with one of (the effect happened / did not):\n",
      );
    for (const command of summary.resolve) process.stdout.write(`  ${command}\n`);
  }
  // A stop that waits for the operator (an indeterminate action, a harness error) is a finding.
  if (errors.length > 0 || stopped.some((s) => OPERATOR_STOPS.has(s.stopReason ?? "")))
    process.exitCode = ExitCode.findings;
}

const OPERATOR_STOPS = new Set<string>(["tool_action_indeterminate", "harness_error"]);

/** When no scheduler can run any more (each stopped or completed), the line that says so. */
function idleLine(schedulers: readonly SchedulerRecord[]): string | undefined {
  if (schedulers.length === 0 || schedulers.some((s) => s.lifecycle === "running")) return undefined;
  const count = (l: string) => schedulers.filter((s) => s.lifecycle === l).length;
  return `nothing left to run: every scheduler is stopped or completed (${count("stopped")} stopped, ${count("completed")} completed)`;
}
