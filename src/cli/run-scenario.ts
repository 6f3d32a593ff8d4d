import { statSync } from "node:fs";
import { CommanderError } from "commander";
import { resolveCommands } from "../printed/index.js";
import { codeOf, MEMORY_STORE_URL } from "../records/index.js";
import {
  DEFAULT_LEASE_TTL_MS,
  type PacedRunSummary,
  parseStochasticControl,
  RuntimeManager,
  realTimePacing,
  type StochasticControl,
  survivedLeaseLoss,
} from "../runtime/index.js";
import type { SchedulerRecord, ToolActionRecord } from "../store/index.js";
import { buildRuntime, type RuntimeChoice, runtimeChoiceProblem } from "./agent-runtime.js";
import { CliErrorCode, ExitCode, errorLine, printError, printJson } from "./exit.js";
import { installOtlp } from "./otlp.js";
import {
  byParticipant,
  nextStepLines,
  nextSteps,
  pacingJson,
  pacingLine,
  RunProgress,
  shareLine,
} from "./output/index.js";
import { readRunInputs } from "./run-inputs.js";
import { checkedRunMap } from "./run-map.js";
import { makeStoreFolder } from "./store-option.js";

function parseControls(values: readonly string[]): StochasticControl[] {
  return values.map((value) => {
    try {
      return parseStochasticControl(value);
    } catch (error) {
      // Not InvalidArgumentError: commander would echo the value, and the value holds the seed.
      const code = codeOf(error) ?? CliErrorCode.uncoded;
      printError(code, `--stochastic-control: ${(error as Error).message}`);
      throw new CommanderError(ExitCode.usage, code, (error as Error).message);
    }
  });
}

/** The options of `raes run`, as parsed; stochastic controls stay text until the runtime module loads. */
export interface RunOptions extends RuntimeChoice {
  readonly manifest: string;
  readonly store: string;
  readonly steps?: number;
  readonly tickMs?: number;
  readonly realTime?: boolean;
  readonly concurrency?: number;
  readonly leaseTtlMs?: number;
  readonly json?: boolean;
  readonly stochasticControl: string[];
  readonly allowPolicyChange?: boolean;
  /** With `allowPolicyChange`: who allows it and why (the `policy_change` decision). */
  readonly operator?: string;
  readonly note?: string;
}

/** Reports why the run did not start; a file that cannot be read is an input error (exit 2). */
function fail(code: string, message: string, unreadable = false): void {
  printError(code, message);
  process.exitCode = unreadable ? ExitCode.usage : ExitCode.findings;
}

/** What a thrown value says, for one line on stderr. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `raes run SCENARIO` with its parsed options; `--otlp` exports spans until it returns. */
export async function runScenario(scenarioPath: string, options: RunOptions): Promise<void> {
  const stochasticControls = parseControls(options.stochasticControl);
  const otlp = options.otlp === undefined ? undefined : await installOtlp(options.otlp, "raes-ts");
  try {
    await runParsed(scenarioPath, options, stochasticControls);
  } finally {
    await otlp?.shutdown();
  }
}

async function runParsed(
  scenarioPath: string,
  options: RunOptions,
  stochasticControls: StochasticControl[],
): Promise<void> {
  const problem = runtimeChoiceProblem(options);
  if (problem) {
    printError(CliErrorCode.usage, problem);
    process.exitCode = ExitCode.usage;
    return;
  }
  if (options.runtime !== undefined && !statSync(options.runtime, { throwIfNoEntry: false })?.isFile())
    return fail(
      CliErrorCode.usage,
      `--runtime ${options.runtime}: no such file (give the harness module's path)`,
      true,
    );
  const inputs = await readRunInputs(scenarioPath, options.manifest, "nothing ran");
  if ("exit" in inputs) {
    process.exitCode = inputs.exit;
    return;
  }
  const { model, manifest } = inputs;
  // The gateway of each invocation reads the map; checked here, as host mode checks it, a map it
  // would refuse (or one no call could be admitted for) stops the run before any attempt is spent.
  if (options.agentCommand !== undefined && !(await checkedRunMap(options.map as string, model))) {
    process.exitCode = ExitCode.usage;
    return;
  }
  if (options.realTime && options.tickMs === undefined) {
    // Before open, which runs the start tick: a clock the SDL does not pace is refused with nothing run.
    try {
      realTimePacing(model);
    } catch (error) {
      return fail(
        codeOf(error) ?? CliErrorCode.usage,
        error instanceof Error ? error.message : String(error),
      );
    }
  }
  // Before the store folder: a module that builds no runtime is refused with nothing written.
  let runtime: Awaited<ReturnType<typeof buildRuntime>>;
  try {
    runtime = await buildRuntime(options);
  } catch (error) {
    if (codeOf(error) !== CliErrorCode.runtime_module_invalid) throw error;
    return fail(CliErrorCode.runtime_module_invalid, messageOf(error), true);
  }
  makeStoreFolder(options.store);
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
    stochasticControls,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
    ...(options.allowPolicyChange
      ? {
          allowPolicyChange: {
            ...(options.operator === undefined ? {} : { operator: options.operator }),
            ...(options.note === undefined ? {} : { note: options.note }),
          },
        }
      : {}),
    observer: {
      invocationClosed: (s) => {
        progress.invocationClosed(s);
        if (s.error === undefined) return;
        errors.push({ invocation: s.invocationId, error: String(s.error) });
        printError(
          codeOf(s.error) ?? CliErrorCode.invocation_failed,
          `${s.invocationId} failed: ${messageOf(s.error)}`,
        );
      },
      toolActionRefused: (code) => progress.refused(code),
      shareChanged: (share) => progress.share(share),
    },
  });
  const opened = manager.share();
  if (opened.owned < opened.participants) {
    process.stderr.write(
      `raes run: ${shareLine(opened)}; the others are owned by other live runtimes (their scheduler leases are held)\n`,
    );
  }
  // Nothing to own now and no share to wait for: more processes than participants.
  if (opened.owned === 0 && opened.target === 0 && opened.participants > 0) {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await manager.close();
    return fail(
      CliErrorCode.no_participant_free,
      "no participant could be taken: every one is owned by a live runtime",
    );
  }
  let paced: PacedRunSummary | undefined;
  const closed = closedOnFailure(manager, options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS);
  try {
    if (options.tickMs === undefined && !options.realTime) {
      const steps = options.steps ?? 1;
      const log = (line: string) => process.stderr.write(`raes run: ${line}\n`);
      for (let i = 0; i < steps && !interrupt.signal.aborted; i += 1)
        await manager.step(1).catch((e: unknown) => survivedLeaseLoss(e, log));
    } else {
      paced = await manager.run({
        ...(options.tickMs === undefined ? {} : { tickMs: options.tickMs }),
        signal: interrupt.signal,
        ...(options.steps === undefined ? {} : { steps: options.steps }),
        onStep: (step) => progress.paced(step),
      });
    }
  } catch (error) {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    progress.finish();
    throw await closed(error);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    progress.finish();
  }
  const schedulers = manager.schedulers();
  const stopped = schedulers.filter((s) => s.lifecycle === "stopped");
  let tornDown: Set<string>;
  let unresolved: ToolActionRecord[];
  try {
    tornDown = new Set(
      (await manager.participantServices())
        .filter((r) => r.service.observed_lifecycle === "terminated")
        .map((r) => r.participantAddress),
    );
    const settled = await manager.store.listToolActions({ phase: "settled" });
    unresolved = settled.filter((a) => a.settlement === "indeterminate" && !a.resolution);
  } catch (error) {
    throw await closed(error);
  }
  const idle = idleLine(schedulers, tornDown);
  await manager.close();
  const next = nextSteps(
    stopped.map((s) => ({
      participant: s.participantAddress,
      reason: s.stopReason,
      continuationFailed: s.activity?.lifecycle_state === "failed",
    })),
    byParticipant(unresolved),
    options.store,
  );
  // A memory: store ends with this process: a printed command naming it would find no store, so the
  // next steps say what waits without commands, and one line says why.
  const lasting = options.store !== MEMORY_STORE_URL;
  const summary = {
    ...progress.toJSON(),
    errors,
    ...(paced ? { pacing: pacingJson(paced) } : {}),
    stopped: stopped.map((s) => ({ participant: s.participantAddress, reason: s.stopReason ?? null })),
    ...(idle ? { idle } : {}),
    resolve: lasting
      ? unresolved.flatMap((a) => {
          const commands = resolveCommands(a.id, options.store);
          return [commands.confirmed, commands.absent];
        })
      : [],
    next: next.map((s) => ({
      participant: s.participant,
      reason: s.reason,
      say: s.say,
      commands: lasting ? s.commands : [],
    })),
  };
  if (options.json) printJson(summary);
  else {
    process.stdout.write(`${progress.line()}\n`);
    const share = progress.shareLine();
    if (share) process.stdout.write(`${share}\n`);
    if (paced) process.stdout.write(`${pacingLine(paced)}\n`);
    if (lasting) for (const line of nextStepLines(next)) process.stdout.write(`${line}\n`);
    else if (next.length > 0)
      process.stdout.write(
        `${next.map((s) => `stopped: ${s.participant} (${s.reason ?? "stopped"})`).join("\n")}\n` +
          "the memory: store ended with this run, so nothing here can be resolved or resumed: run with --store sqlite:PATH to keep what needs a person\n",
      );
    if (idle) process.stdout.write(`${idle}\n`);
  }
  // Exit 0 only when every scheduler is running or completed: a stop, whatever its reason, waits for
  // the operator, as does a harness error.
  if (errors.length > 0 || stopped.length > 0 || unresolved.length > 0) process.exitCode = ExitCode.findings;
}

/**
 * When no scheduler can run any more (each stopped or completed, or its participant torn down by
 * `raes control teardown`, which is final), the line that says so.
 */
function idleLine(schedulers: readonly SchedulerRecord[], tornDown: ReadonlySet<string>): string | undefined {
  const down = (s: SchedulerRecord) => tornDown.has(s.participantAddress);
  if (schedulers.length === 0 || schedulers.some((s) => s.lifecycle === "running" && !down(s)))
    return undefined;
  const count = (l: string) => schedulers.filter((s) => s.lifecycle === l && !down(s)).length;
  const torn = schedulers.filter(down).length;
  if (torn === 0)
    return `nothing left to run: every scheduler is stopped or completed (${count("stopped")} stopped, ${count("completed")} completed)`;
  return `nothing left to run: every scheduler is stopped or completed or its participant torn down (${count("stopped")} stopped, ${count("completed")} completed, ${torn} of torn-down participants: raes control teardown is final)`;
}

/** How long a failed run waits to give its leases back before it exits without (they expire then). */
const CLOSE_BOUND_MS = 10_000;
/** How long a failed run whose store stopped answering may take to report its error and exit. */
const EXIT_AFTER_REPORT_MS = 5_000;

/**
 * Closes the manager of a run that failed, then gives back the failure: the process gives its
 * participants back and leaves (its keep-alive stops), so another process takes them at once, and the
 * store's connections close, so the process can exit. A close that fails too is not the run's error.
 * A signal meanwhile prints the error and ends the process at once. A store that stopped answering
 * is waited for `CLOSE_BOUND_MS`; the error is then reported as usual (spans exported too), and the
 * process ends a moment later if the store's connections would hold it: the leases expire on their own.
 */
function closedOnFailure(manager: RuntimeManager, leaseTtlMs: number): (error: unknown) => Promise<unknown> {
  return async (error) => {
    process.stderr.write("raes run: the run failed; giving its participants back before exiting\n");
    const interrupted = () => {
      process.stderr.write(`${errorLine(codeOf(error), error)}\n`);
      process.exit(130);
    };
    process.once("SIGINT", interrupted);
    process.once("SIGTERM", interrupted);
    let bound: NodeJS.Timeout | undefined;
    const given = await Promise.race([
      manager.close().then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => {
        bound = setTimeout(() => resolve(false), CLOSE_BOUND_MS);
      }),
    ]);
    clearTimeout(bound);
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
    if (given) return error;
    process.stderr.write(
      `raes run: the store did not answer within ${CLOSE_BOUND_MS / 1000} s; the leases not given back expire ${leaseTtlMs} ms after their last renewal\n`,
    );
    // Unreferenced: it ends only a process that the store's connections would keep waiting.
    setTimeout(() => process.exit(process.exitCode ?? ExitCode.findings), EXIT_AFTER_REPORT_MS).unref();
    return error;
  };
}
