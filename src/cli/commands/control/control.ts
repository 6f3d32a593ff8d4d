import { type Command, InvalidArgumentError } from "commander";
import { controlParticipant, OperatorError } from "../../../operations/index.js";
import { printableStoreUrl, printedCommand } from "../../../printed/index.js";
import { ExecutionControlAction } from "../../../records/index.js";
import { ExitCode, printJson } from "../../exit.js";
import { storeOption, withStore } from "../../store-option.js";

const ACTIONS: readonly string[] = Object.values(ExecutionControlAction);

function action(value: string): ExecutionControlAction {
  if (!ACTIONS.includes(value)) throw new InvalidArgumentError(`one of ${ACTIONS.join(", ")}`);
  return value as ExecutionControlAction;
}

function generation(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError("a generation is a non-negative integer");
  return Number(value);
}

function seconds(value: string): number {
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError("whole seconds, 1 or more");
  return Number(value);
}

interface ControlOptions {
  readonly store: string;
  readonly expectedGeneration?: number;
  readonly operator?: string;
  readonly note: string;
  readonly timeout: number;
  readonly json?: boolean;
}

/**
 * `raes control start|pause|resume|drain|reset|teardown PARTICIPANT`: changes the participant's
 * execution service in the store (docs/guide/operations.md, "Controlling one participant"); a `raes run`
 * using the store honours it at its next advance. A thin shell over `controlParticipant`.
 */
export function registerControlCommand(program: Command): void {
  storeOption(
    program
      .command("control <action> <participant>")
      .option("--expected-generation <g>", "refuse unless the service is at this generation", generation)
      .option("--operator <name>", "who decides (default: RAES_OPERATOR, else USER@HOST)")
      .option("--note <text>", "why", "")
      .option("--timeout <seconds>", "how long drain waits for open invocations", seconds, 30)
      .option("--json", "print the answer as JSON"),
  ).action(async (actionName: string, participant: string, options: ControlOptions) => {
    let verb: ExecutionControlAction;
    try {
      verb = action(actionName);
    } catch (error) {
      process.stderr.write(`raes: cli.usage: ${(error as Error).message} for <action>\n`);
      process.exitCode = ExitCode.usage;
      return;
    }
    try {
      const outcome = await withStore(
        options.store,
        (store) =>
          controlParticipant(store, {
            participant,
            action: verb,
            note: options.note,
            drainTimeoutMs: options.timeout * 1000,
            ...(options.operator === undefined ? {} : { operator: options.operator }),
            ...(options.expectedGeneration === undefined
              ? {}
              : { expectedGeneration: options.expectedGeneration }),
          }),
        { create: false },
      );
      if (!outcome.ok) process.exitCode = ExitCode.findings;
      if (options.json) return printJson(outcome);
      if (outcome.ok) {
        const s = outcome.service;
        process.stdout.write(
          `${participant}: ${s.observed_lifecycle}, ${s.health} (generation ${s.generation}, ${s.accepting_new_work ? "accepting work" : "not accepting work"})\n`,
        );
        return;
      }
      process.stderr.write(`raes: ${outcome.code}: ${outcome.message}\n`);
      if (outcome.service)
        process.stderr.write(
          `  ${participant} is ${outcome.service.observed_lifecycle}, ${outcome.service.health}, at generation ${outcome.service.generation}\n`,
        );
      if (outcome.ownerGone) {
        // Each runs as printed; the raes run itself needs the scenario, which the store does not name.
        const store = printableStoreUrl(options.store);
        process.stderr.write(
          `  see them: ${printedCommand(["operations", "--participant", participant, "--store", store])}\n` +
            `  once a raes run on this store has recovered them: ${printedCommand(["control", "drain", participant, "--store", store])}\n`,
        );
      }
    } catch (error) {
      if (!(error instanceof OperatorError)) throw error;
      if (options.json) printJson({ error: error.code, message: error.message });
      else process.stderr.write(`raes: ${error.code}: ${error.message}\n`);
      process.exitCode = ExitCode.usage;
    }
  });
}
