import { printableStoreUrl, printedCommand, resolveCommands, resumeCommand } from "../../printed/index.js";

/** A stopped scheduler as `raes run` and `raes demo` report it. */
export interface StoppedScheduler {
  readonly participant: string;
  readonly reason: string | undefined;
  /** A v2 continuation that ended failed: resume refuses it. */
  readonly continuationFailed?: boolean;
}

/** What the operator does about one stopped participant: a sentence, then commands that run as printed. */
export interface NextStep {
  readonly participant: string;
  readonly reason: string;
  readonly say: string;
  readonly commands: readonly string[];
}

/**
 * The next step of each stopped participant, in the order given (one per participant): its
 * unresolved indeterminate actions' `raes resolve` commands then `raes resume`; after a failure or a
 * harness error, the failed operations' listing then `raes resume`; a v2 continuation that ended
 * failed cannot be resumed, so only the listing.
 */
export function nextSteps(
  stopped: readonly StoppedScheduler[],
  unresolved: ReadonlyMap<string, readonly string[]>,
  storeUrl: string,
): NextStep[] {
  const store = printableStoreUrl(storeUrl);
  const seen = new Set<string>();
  const steps: NextStep[] = [];
  for (const s of stopped) {
    if (seen.has(s.participant)) continue;
    seen.add(s.participant);
    const reason = s.reason ?? "unknown";
    const ids = unresolved.get(s.participant) ?? [];
    const resume = resumeCommand(s.participant, storeUrl);
    const failed = printedCommand([
      "operations",
      "--participant",
      s.participant,
      "--state",
      "failed",
      "--store",
      store,
    ]);
    if (ids.length > 0) {
      const resolve = ids.flatMap((id) => {
        const c = resolveCommands(id, storeUrl);
        return [c.confirmed, c.absent];
      });
      steps.push({
        participant: s.participant,
        reason,
        say: "resolve each indeterminate action with one of (the effect happened / did not), then resume:",
        commands: [...resolve, resume],
      });
    } else if (s.continuationFailed === true) {
      steps.push({
        participant: s.participant,
        reason,
        say: "its v2 continuation ended failed and only a reset starts it again; see what failed:",
        commands: [failed],
      });
    } else if (reason === "attempts_exhausted") {
      steps.push({
        participant: s.participant,
        reason,
        say: "its attempts are used up; resume marks it completed:",
        commands: [resume],
      });
    } else {
      steps.push({
        participant: s.participant,
        reason,
        say: "see what failed, fix it, then resume:",
        commands: [failed, resume],
      });
    }
  }
  return steps;
}

/** The lines that print the next steps: `stopped: P (reason)`, the sentence, each command indented. */
export function nextStepLines(steps: readonly NextStep[]): string[] {
  return steps.flatMap((s) => [
    `stopped: ${s.participant} (${s.reason})`,
    `  next: ${s.say}`,
    ...s.commands.map((c) => `    ${c}`),
  ]);
}

/** Unresolved indeterminate action ids grouped by participant. */
export function byParticipant(
  actions: readonly { readonly id: string; readonly participantAddress: string }[],
): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const a of actions) map.set(a.participantAddress, [...(map.get(a.participantAddress) ?? []), a.id]);
  return map;
}
