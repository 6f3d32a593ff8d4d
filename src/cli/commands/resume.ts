import type { Command } from "commander";
import { resumedScheduler, unresolvedIndeterminateActions } from "../../operations/index.js";
import { newOwnerId, takeParticipantLease } from "../../runtime/index.js";
import type { ControlPlaneStore } from "../../store/index.js";
import { ExitCode, printJson } from "../exit.js";
import { resolveCommands } from "../shell.js";
import { storeOption, withStore } from "../store-option.js";

type ResumeAnswer =
  | { readonly resumed: string[] }
  | { readonly error: string; readonly message: string; readonly unresolved?: string[] };

async function resume(store: ControlPlaneStore, participant: string): Promise<ResumeAnswer> {
  const unresolved = await unresolvedIndeterminateActions(store, participant);
  if (unresolved.length > 0) {
    return { error: "runtime.unresolved-indeterminate-actions", message: "resolve these first", unresolved };
  }
  const records = (await store.listSchedulers()).filter((s) => s.participantAddress === participant);
  if (records.length === 0)
    return { error: "runtime.unknown-participant", message: `no scheduler for ${participant}` };
  // Taking the lease fences out a live owner: its scheduler is resumed there, not behind its back.
  // An owner that provably died on this host (as `raes run` judges it) holds nothing.
  const lease = await takeParticipantLease(store, participant, newOwnerId(), 10_000);
  if (!lease) {
    return {
      error: "runtime.participant-owned",
      message: "a live runtime owns this participant; resume it there",
    };
  }
  try {
    const at = new Date().toISOString();
    for (const record of records) {
      await store.saveScheduler(resumedScheduler(record, at), {
        participantAddress: participant,
        token: lease.token,
      });
    }
  } finally {
    await store.releaseLease(lease);
  }
  return { resumed: records.map((r) => r.policyAddress) };
}

/** `raes resume PARTICIPANT`: restarts a stopped scheduler once its indeterminate actions are resolved. */
export function registerResumeCommand(program: Command): void {
  storeOption(
    program
      .command("resume <participant>")
      .description(
        "restart a participant's stopped scheduler (refused while indeterminate actions are unresolved)",
      )
      .option("--json", "print the answer as JSON"),
  ).action(async (participant: string, options: { store: string; json?: boolean }) => {
    const answer = await withStore(options.store, (store) => resume(store, participant), { create: false });
    if ("error" in answer) process.exitCode = ExitCode.findings;
    if (options.json) return printJson(answer);
    if ("resumed" in answer) return void process.stdout.write(`resumed ${participant}\n`);
    process.stderr.write(`raes: ${answer.error}: ${answer.message}\n`);
    for (const id of answer.unresolved ?? []) {
      const commands = resolveCommands(id, options.store);
      process.stderr.write(`  ${commands.confirmed}\n  ${commands.absent}\n`);
    }
  });
}
