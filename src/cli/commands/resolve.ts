import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { ResolutionError, resolveToolAction, ToolActionResolution } from "../../operations/index.js";
import { ExitCode, printJson } from "../exit.js";
import { storeOption, withStore } from "../store-option.js";
import { operationToWire } from "./operation.js";

const EFFECTS: Readonly<Record<string, ToolActionResolution>> = {
  confirmed: ToolActionResolution.effect_confirmed,
  absent: ToolActionResolution.effect_absent,
};

function parseEffect(value: string): ToolActionResolution {
  const effect = EFFECTS[value];
  if (!effect) throw new InvalidArgumentError("use confirmed or absent");
  return effect;
}

/** `raes resolve ID --effect confirmed|absent`: records an operator's decision on an indeterminate action. */
export function registerResolveCommand(program: Command): void {
  storeOption(
    program
      .command("resolve <id>")
      .description("resolve an indeterminate tool action; the effect is never repeated")
      .requiredOption("--effect <effect>", "what happened: confirmed or absent", parseEffect)
      .option("--note <text>", "why you decided so", "")
      .option("--json", "print the resolved operation as JSON"),
  ).action(
    async (
      id: string,
      options: { store: string; effect: ToolActionResolution; note: string; json?: boolean },
    ) => {
      try {
        const operation = await withStore(options.store, (store) =>
          resolveToolAction(store, id, { resolution: options.effect, note: options.note }),
        );
        if (options.json) return printJson(operationToWire(operation));
        process.stdout.write(`resolved ${id}: ${options.effect}\n`);
      } catch (error) {
        if (!(error instanceof ResolutionError)) throw error;
        if (options.json) printJson({ error: error.code, message: error.message });
        else process.stderr.write(`raes: ${error.code}: ${error.message}\n`);
        process.exitCode = ExitCode.findings;
      }
    },
  );
}
