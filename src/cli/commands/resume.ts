import type { Command } from "commander";
import {
  decisionNote,
  decisionTime,
  newOwnerId,
  OperatorError,
  operatorIdentity,
  resumeDecision,
  takeParticipantLease,
  unresolvedIndeterminateActions,
} from "../../operations/index.js";
import { resolveCommands, resumeCommand } from "../../printed/index.js";
import type { ControlPlaneStore } from "../../store/index.js";
import { ExitCode, printJson } from "../exit.js";
import { storeOption, withStore } from "../store-option.js";

type ResumeAnswer =
  /** `resumed`: policies running again; `completed`: stopped ones whose bound was used up. */
  | { readonly resumed: string[]; readonly completed?: string[] }
  /** Nothing was stopped: each policy's lifecycle, unchanged; invocations a dead run left open, if any. */
  | { readonly not_stopped: Record<string, string>; readonly interrupted?: string[] }
  | {
      readonly error: string;
      readonly message: string;
      readonly unresolved?: string[];
      readonly reasons?: string[];
    };

/** Who resumes and why, recorded as the operator's `resume` decision. */
interface ResumeBy {
  readonly operator: string;
  readonly note: string;
}

async function resume(store: ControlPlaneStore, participant: string, by: ResumeBy): Promise<ResumeAnswer> {
  const unresolved = await unresolvedIndeterminateActions(store, participant);
  if (unresolved.length > 0) {
    return {
      error: "runtime.unresolved-indeterminate-actions",
      message: "resolve these first, each with one of (the effect happened / did not)",
      unresolved,
    };
  }
  const records = (await store.listSchedulers()).filter((s) => s.participantAddress === participant);
  if (records.length === 0)
    return { error: "runtime.unknown-participant", message: `no scheduler for ${participant}` };
  const at = decisionTime(new Date());
  // The bound each record carries (schema step 7) completes a v1 schedule whose attempts are used up.
  const decisions = records.map((record) => resumeDecision(record, at));
  const reasons = decisions.flatMap((d) => (d.kind === "not_resumable" ? [d.reason] : []));
  if (reasons.length > 0) {
    // The runtime module loads only for this answer, so `raes --help` does not pay for it.
    const { RuntimeErrorCode } = await import("../../runtime/index.js");
    return {
      error: RuntimeErrorCode.scheduler_not_resumable,
      message: `${participant} cannot be resumed`,
      reasons,
    };
  }
  const stopped = decisions.flatMap((d) => (d.kind === "resumed" ? [d.record] : []));
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
    // The schedulers run again and the decision is chained in one transaction (docs/evidence-format.md).
    if (stopped.length > 0)
      await store.recordDecision(
        { kind: "resume", subject: participant, operator: by.operator, note: by.note, decided_at: at },
        stopped,
        { participantAddress: participant, token: lease.token },
      );
  } finally {
    await store.releaseLease(lease);
  }
  if (stopped.length === 0) {
    const interrupted = (await store.listOpenInvocations(participant)).map((i) => i.id);
    return {
      not_stopped: Object.fromEntries(records.map((r) => [r.policyAddress, r.lifecycle])),
      ...(interrupted.length > 0 ? { interrupted } : {}),
    };
  }
  const completed = stopped.filter((r) => r.lifecycle === "completed").map((r) => r.policyAddress);
  return {
    resumed: stopped.filter((r) => r.lifecycle === "running").map((r) => r.policyAddress),
    ...(completed.length > 0 ? { completed } : {}),
  };
}

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
      let by: ResumeBy;
      try {
        by = { operator: operatorIdentity(options.operator), note: decisionNote(options.note) };
      } catch (error) {
        if (!(error instanceof OperatorError)) throw error;
        if (options.json) printJson({ error: error.code, message: error.message });
        else process.stderr.write(`raes: ${error.code}: ${error.message}\n`);
        process.exitCode = ExitCode.usage;
        return;
      }
      const answer = await withStore(options.store, (store) => resume(store, participant, by), {
        create: false,
      });
      // Like `raes resolve` answering "already resolved": a participant that was not stopped is exit 0.
      if ("error" in answer) process.exitCode = ExitCode.findings;
      if (options.json) return printJson(answer);
      print(participant, answer, options.store);
    },
  );
}
