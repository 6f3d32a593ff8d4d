import type { Command } from "commander";
import {
  type ApprovalOutcome,
  approveToolAction,
  denyToolAction,
  OperationLookupCode,
  OperationLookupError,
  operationId,
} from "../../../operations/index.js";
import { ExitCode, printError, printJson } from "../../exit.js";
import { storeOption, withStore } from "../../store-option.js";
import { operationToWire } from "../operation-wire.js";

interface DecideOptions {
  readonly store: string;
  readonly note: string;
  readonly operator?: string;
  readonly json?: boolean;
}

type Verb = "approve" | "deny";

/** What each outcome prints for a person. */
const SAID: Readonly<Record<Exclude<ApprovalOutcome["outcome"], "refused">, string>> = {
  approved: "approved ID: its runtime dispatches it now, and the tool runs once",
  "already-approved": "already approved ID; nothing changed",
  denied: "denied ID: it is withheld, and the tool never runs",
  "already-denied": "already denied ID; nothing changed",
};

/**
 * `raes approve ID` / `raes deny ID`: a thin layer over `approveToolAction` / `denyToolAction`. The
 * id may be any unique prefix or suffix; a repeated decision exits 0 and says so; a refusal prints
 * its code and exits 1 (2 for an ambiguous id).
 */
function registerDecision(program: Command, verb: Verb): void {
  storeOption(
    program
      .command(`${verb} <id>`)
      .option("--note <text>", "why you decided so", "")
      .option("--operator <name>", "who decides (default: RAES_OPERATOR, else USER@HOST)")
      .option("--json", "print the operation as JSON"),
  ).action(async (given: string, options: DecideOptions) => {
    const decide = verb === "approve" ? approveToolAction : denyToolAction;
    const answer = await withStore(
      options.store,
      async (store) => {
        let id: string;
        try {
          id = await operationId(store, given);
        } catch (error) {
          if (error instanceof OperationLookupError) return { error };
          throw error;
        }
        const outcome = await decide(store, id, {
          note: options.note,
          ...(options.operator === undefined ? {} : { operator: options.operator }),
        });
        return { id, outcome };
      },
      { create: false },
    );
    if ("error" in answer) {
      const { error } = answer;
      if (options.json) printJson({ error: error.code, message: error.message });
      else printError(error.code, error.message);
      process.exitCode = error.code === OperationLookupCode.ambiguous ? ExitCode.usage : ExitCode.findings;
      return;
    }
    const { id, outcome } = answer;
    if (outcome.outcome === "refused") {
      if (options.json) printJson({ error: outcome.code, message: outcome.message });
      else printError(outcome.code, outcome.message);
      process.exitCode = ExitCode.findings;
      return;
    }
    if (options.json) return printJson({ ...operationToWire(outcome.operation), outcome: outcome.outcome });
    process.stdout.write(`${SAID[outcome.outcome].replace("ID", id)}\n`);
  });
}

/** `raes approve ID [--note T] [--operator NAME]`: dispatches a call held for approval. */
export function registerApproveCommand(program: Command): void {
  registerDecision(program, "approve");
}

/** `raes deny ID [--note T] [--operator NAME]`: withholds a call held for approval. */
export function registerDenyCommand(program: Command): void {
  registerDecision(program, "deny");
}
