import type { Command } from "commander";
import {
  decisionNote,
  OperatorError,
  operatorIdentity,
  type ResumeAnswer,
  resumeStoredParticipant,
} from "../../operations/index.js";
import { resolveCommands, resumeCommand } from "../../printed/index.js";
import { ExitCode, printJson } from "../exit.js";
import { storeOption, withStore } from "../store-option.js";

function print(participant: string, answer: ResumeAnswer, storeUrl: string): void {
  if ("not_stopped" in answer) {
    const states = [...new Set(Object.values(answer.not_stopped))].join(", ");
    process.stdout.write(`${participant} was not stopped (${states}); nothing to resume\n`);
    const open = answer.interrupted?.length ?? 0;
    if (open > 0)
      process.stdout.write(
        `  ${open} invocation${open === 1 ? "" : "s"} left open by a dead run; the next raes run recovers ${open === 1 ? "it" : "them"}\n`,
      );
    return;
  }
  if ("resumed" in answer) {
    if (answer.resumed.length > 0) process.stdout.write(`resumed ${participant}\n`);
    if (answer.completed)
      process.stdout.write(`${participant} completed: its max_action_attempts is used up\n`);
    return;
  }
  process.stderr.write(`raes: ${answer.error}: ${answer.message}\n`);
  for (const reason of answer.reasons ?? []) process.stderr.write(`  ${reason}\n`);
  for (const id of answer.unresolved ?? []) {
    const commands = resolveCommands(id, storeUrl);
    process.stderr.write(`  ${commands.confirmed}\n  ${commands.absent}\n`);
  }
  if ((answer.unresolved?.length ?? 0) > 0)
    process.stderr.write(`then resume:\n  ${resumeCommand(participant, storeUrl)}\n`);
}

/** `raes resume PARTICIPANT`: restarts a stopped scheduler once its indeterminate actions are resolved. */
export function registerResumeCommand(program: Command): void {
  storeOption(
    program
      .command("resume <participant>")
      .option("--note <text>", "why you resume it", "")
      .option("--operator <name>", "who decides (default: RAES_OPERATOR, else USER@HOST)")
      .option("--json", "print the answer as JSON"),
  ).action(
    async (
      participant: string,
      options: { store: string; json?: boolean; note: string; operator?: string },
    ) => {
      let by: { readonly operator: string; readonly note: string };
      try {
        by = { operator: operatorIdentity(options.operator), note: decisionNote(options.note) };
      } catch (error) {
        if (!(error instanceof OperatorError)) throw error;
        if (options.json) printJson({ error: error.code, message: error.message });
        else process.stderr.write(`raes: ${error.code}: ${error.message}\n`);
        process.exitCode = ExitCode.usage;
        return;
      }
      const answer = await withStore(
        options.store,
        (store) => resumeStoredParticipant(store, participant, by),
        {
          create: false,
        },
      );
      // Like `raes resolve` answering "already resolved": a participant that was not stopped is exit 0.
      if ("error" in answer) process.exitCode = ExitCode.findings;
      if (options.json) return printJson(answer);
      print(participant, answer, options.store);
    },
  );
}
