import { ServiceMovedError } from "../../store/index.js";
import { asLedgerError } from "../errors.js";
import {
  type InvocationContext,
  type InvocationSummary,
  runInvocation,
  unansweredClaimsOf,
} from "../invocation/index.js";
import type { ScheduleBook } from "../schedule/index.js";

/**
 * How often one due tick reads the services again after its open was refused because a service moved
 * (`ServiceMovedError`) before it leaves the tick. Each refusal is another process's write in between;
 * three in a row under one tick only happen under a storm of controls.
 */
export const ADMISSION_ATTEMPTS = 3;

/** What a participant's due ticks run with. */
export interface DueRunner {
  readonly ctx: InvocationContext;
  readonly book: ScheduleBook;
  /** Reads the participants' services again (the book's admissions with them). */
  readonly refresh: () => Promise<void>;
  readonly closed?: (summary: InvocationSummary) => void;
}

/**
 * The note of a tick left because its opens were refused `ADMISSION_ATTEMPTS` times: the services kept
 * changing under it. The tick's work is not run; the schedule goes on at its next tick.
 */
export function admissionLeftLine(participantAddress: string, tick: number): string {
  return `${participantAddress}: tick ${tick} left without an invocation: its execution service changed ${ADMISSION_ATTEMPTS} times while it was being admitted`;
}

/**
 * Runs one participant's due v1 ticks in order, each open admitted under the participant's service as last
 * read (docs/guide/operations.md, "Controlling one participant"): an open refused because the service
 * moved (a pause, drain or teardown stored by any process) wrote nothing; the services are read again and
 * the tick is decided anew, so no invocation starts after a control is stored.
 */
export async function runDueTicks(
  runner: DueRunner,
  participantAddress: string,
  policyAddress: string,
  ticks: readonly number[],
): Promise<InvocationSummary[]> {
  const { book } = runner;
  const out: InvocationSummary[] = [];
  each: for (const tick of ticks) {
    for (let attempt = 1; ; attempt += 1) {
      const entry = book.runnable(participantAddress, policyAddress);
      if (!entry) break each;
      let summary: InvocationSummary;
      try {
        summary = await runInvocation(
          {
            ...runner.ctx,
            fence: book.fenceFor(participantAddress),
            ...admissionOf(book, participantAddress),
          },
          entry.spec,
          entry.scheduler,
          book.clockFor(entry.spec, tick),
        );
      } catch (error) {
        if (error instanceof ServiceMovedError) {
          await runner.refresh();
          if (attempt < ADMISSION_ATTEMPTS) continue;
          runner.ctx.log(admissionLeftLine(participantAddress, tick));
          break each;
        }
        book.markUncertain(participantAddress, policyAddress, unansweredClaimsOf(error));
        throw asLedgerError(error);
      }
      book.updateScheduler(summary.scheduler);
      runner.closed?.(summary);
      out.push(summary);
      break;
    }
  }
  await book.finishWindow(participantAddress, policyAddress);
  return out;
}

/** The context field of a participant's admission, absent when it has no service record. */
export function admissionOf(
  book: ScheduleBook,
  participantAddress: string,
): { admission?: NonNullable<InvocationContext["admission"]> } {
  const admission = book.admissionFor(participantAddress);
  return admission ? { admission } : {};
}
