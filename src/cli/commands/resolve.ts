import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import {
  type Operation,
  OperationLookupCode,
  OperationLookupError,
  OperatorError,
  operationId,
  operatorIdentity,
  ResolutionError,
  ResolutionRefusal,
  resolveToolAction,
  ToolActionResolution,
} from "../../operations/index.js";
import type { ControlPlaneStore } from "../../store/index.js";
import { ExitCode, printError, printJson } from "../exit.js";
import { storeOption, withStore } from "../store-option.js";
import { operationToWire } from "./operation-wire.js";

const EFFECTS: Readonly<Record<string, ToolActionResolution>> = {
  confirmed: ToolActionResolution.effect_confirmed,
  absent: ToolActionResolution.effect_absent,
};

function parseEffect(value: string): ToolActionResolution {
  const effect = EFFECTS[value];
  if (!effect) throw new InvalidArgumentError("use confirmed or absent");
  return effect;
}

interface ResolveOptions {
  readonly store: string;
  readonly effect: ToolActionResolution;
  readonly note: string;
  readonly operator?: string;
  readonly json?: boolean;
}

type ResolveAnswer =
  | { readonly id: string; readonly resolved: Operation; readonly again: boolean }
  | { readonly error: ResolutionError | OperationLookupError | OperatorError };

/**
 * A dispatched action whose runtime died is still `running` until a restart recovers it: the refusal
 * says so and how, instead of leaving the operator at "is dispatched".
 */
async function stillRunning(
  store: ControlPlaneStore,
  id: string,
  error: ResolutionError,
): Promise<ResolutionError> {
  if ((await store.getOperation(id))?.state !== "running") return error;
  return new ResolutionError(
    error.code,
    `${error.message}; it is still running: if its runtime is gone, starting it again on this store (\`raes run\` with the same scenario, or the host-mode \`raes mcp-gateway\` at its next session) recovers it first (indeterminate when it was dispatched; nothing is retried), then resolve it`,
  );
}

/**
 * Resolves once; asking again for the decision already recorded is answered, not refused (a retried
 * script). `given` is the id or any unique prefix or suffix of it.
 */
async function resolve(given: string, options: ResolveOptions): Promise<ResolveAnswer> {
  return withStore(
    options.store,
    async (store) => {
      let id: string;
      try {
        id = await operationId(store, given);
      } catch (error) {
        if (error instanceof OperationLookupError) return { error };
        throw error;
      }
      try {
        operatorIdentity(options.operator);
      } catch (error) {
        if (error instanceof OperatorError) return { error };
        throw error;
      }
      try {
        const operation = await resolveToolAction(store, id, {
          resolution: options.effect,
          note: options.note,
          ...(options.operator === undefined ? {} : { operator: options.operator }),
        });
        return { id, resolved: operation, again: false };
      } catch (error) {
        if (!(error instanceof ResolutionError)) throw error;
        if (error.code === ResolutionRefusal.not_indeterminate)
          return { error: await stillRunning(store, id, error) };
        if (error.code !== ResolutionRefusal.already_resolved) return { error };
        const existing = await store.getOperation(id);
        const recorded = existing?.resolution;
        if (existing && recorded?.resolution === options.effect)
          return { id, resolved: existing, again: true };
        const message = recorded
          ? `${id} is already resolved as ${recorded.resolution} (at ${recorded.resolvedAt}); a different decision (${options.effect}) is refused`
          : error.message;
        return { error: new ResolutionError(error.code, message) };
      }
    },
    { create: false },
  );
}

/** `raes resolve ID --effect confirmed|absent`: records an operator's decision on an indeterminate action. */
export function registerResolveCommand(program: Command): void {
  storeOption(
    program
      .command("resolve <id>")
      .requiredOption("--effect <effect>", "what happened: confirmed or absent", parseEffect)
      .option("--note <text>", "why you decided so", "")
      .option("--operator <name>", "who decides (default: RAES_OPERATOR, else USER@HOST)")
      .option("--json", "print the resolved operation as JSON"),
  ).action(async (given: string, options: ResolveOptions) => {
    const answer = await resolve(given, options);
    if ("error" in answer) {
      const { error } = answer;
      if (options.json) printJson({ error: error.code, message: error.message });
      else printError(error.code, error.message);
      process.exitCode = error.code === OperationLookupCode.ambiguous ? ExitCode.usage : ExitCode.findings;
      return;
    }
    const { id } = answer;
    if (options.json)
      return printJson({ ...operationToWire(answer.resolved), already_resolved: answer.again });
    const at = answer.resolved.resolution?.resolvedAt ?? "";
    process.stdout.write(
      answer.again
        ? `already resolved ${id}: ${options.effect} (at ${at}); nothing changed\n`
        : `resolved ${id}: ${options.effect}\n`,
    );
  });
}
