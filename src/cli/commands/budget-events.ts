import { budgetEventsCommand } from "../../printed/index.js";
import {
  type ResourceBudgetEventRecord,
  type ResourceEventCounts,
  resourceEventNote,
} from "../../records/index.js";
import type { ControlPlaneStore } from "../../store/index.js";
import { printJson } from "../exit.js";
import { type Column, printNothingMatched, TABLE_WIDTH, tableLines } from "../output/index.js";
import { withStore } from "../store-option.js";

/** How many of the most recent budget events `raes operations --budgets` lists under its table. */
export const RECENT_BUDGET_EVENTS = 10;

/** A budget event as JSON prints it: the stored transition with its schedule and place in the store. */
export interface BudgetEventWire {
  readonly sequence: number;
  readonly participant_address: string;
  readonly policy_address: string;
  readonly seq: number;
  readonly transition: string;
  readonly operation_id: string;
  readonly tick: number;
  readonly segment: number;
  readonly generation: number;
  readonly requested: Readonly<Record<string, number>>;
  readonly measured?: Readonly<Record<string, number>>;
  readonly code?: string;
  readonly capacity_kind?: string;
}

/** The JSON of one stored budget event. */
export function budgetEventWire(e: ResourceBudgetEventRecord): BudgetEventWire {
  const { entry } = e;
  return {
    sequence: e.sequence,
    participant_address: e.participantAddress,
    policy_address: e.policyAddress,
    seq: e.seq,
    transition: entry.transition,
    operation_id: entry.operationId,
    tick: entry.tick,
    segment: entry.segment,
    generation: entry.generation,
    requested: entry.requested,
    ...(entry.measured === undefined ? {} : { measured: entry.measured }),
    ...(entry.code === undefined ? {} : { code: entry.code }),
    ...(entry.capacityKind === undefined ? {} : { capacity_kind: entry.capacityKind }),
  };
}

function vectorText(vector: Readonly<Record<string, number>>): string {
  return Object.entries(vector)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

/** The table of budget events for people, in the order given. */
export function budgetEventLines(events: readonly ResourceBudgetEventRecord[], wide: boolean): string[] {
  const columns: Column[] = [
    { header: "SEQUENCE" },
    { header: "PARTICIPANT", cut: true },
    { header: "EVENT" },
    { header: "TICK" },
    { header: "OPERATION", cut: true },
    { header: "DETAIL", cut: true },
  ];
  const cells = events.map(({ sequence, participantAddress, entry }) => {
    const detail = [
      `requested ${vectorText(entry.requested)}`,
      ...(entry.measured === undefined ? [] : [`measured ${vectorText(entry.measured)}`]),
      ...(entry.capacityKind === undefined ? [] : [entry.capacityKind]),
      ...(entry.code === undefined ? [] : [entry.code]),
    ].join("; ");
    return [
      String(sequence),
      participantAddress,
      entry.transition,
      String(entry.tick),
      entry.operationId,
      detail,
    ];
  });
  return tableLines(columns, cells, wide ? undefined : TABLE_WIDTH);
}

/** What `--budgets` shows of the store's budget events: how many, and the most recent. */
export async function recentBudgetEvents(
  store: ControlPlaneStore,
): Promise<{ counts: ResourceEventCounts; recent: ResourceBudgetEventRecord[] }> {
  const logged = await store.countBudgetEvents();
  const recent = await store.listBudgetEvents({ last: RECENT_BUDGET_EVENTS, limit: RECENT_BUDGET_EVENTS });
  return { counts: { logged, kept: logged }, recent };
}

/** The lines under the `--budgets` table: the most recent events, and how to page through all of them. */
export function recentBudgetEventLines(
  counts: ResourceEventCounts,
  recent: readonly ResourceBudgetEventRecord[],
  storeUrl: string,
  wide: boolean,
): string[] {
  if (counts.logged === 0) return [];
  const lines = [
    "",
    `budget events (${counts.logged} recorded${recent.length < counts.logged ? `; the last ${recent.length}` : ""}):`,
    ...budgetEventLines(recent, wide),
  ];
  const note = resourceEventNote(counts, recent.length, budgetEventsCommand(storeUrl));
  if (note) lines.push(note);
  return lines;
}

/** Options of `raes operations --budget-events`. */
export interface BudgetEventOptions {
  readonly store: string;
  readonly participant?: string;
  readonly after?: number;
  readonly limit: number;
  readonly wide?: boolean;
  readonly json?: boolean;
}

/**
 * Prints `--budget-events`: one page of the store's budget events in order, from after `--after`, then
 * the command that prints the next page (JSON: `{"budget_events": [...], "next_after": n | null}`).
 */
export async function printBudgetEvents(options: BudgetEventOptions): Promise<void> {
  const page = await withStore(
    options.store,
    (store) =>
      store.listBudgetEvents({
        ...(options.participant === undefined ? {} : { participantAddress: options.participant }),
        ...(options.after === undefined ? {} : { afterSequence: options.after }),
        // One more than the page says whether there is a next one.
        limit: options.limit + 1,
      }),
    { create: false },
  );
  const events = page.slice(0, options.limit);
  const last = events.at(-1);
  const nextAfter = page.length > options.limit && last ? last.sequence : null;
  if (options.json) return printJson({ budget_events: events.map(budgetEventWire), next_after: nextAfter });
  if (events.length === 0) return printNothingMatched("budget events", options.store);
  for (const line of budgetEventLines(events, options.wide === true)) process.stdout.write(`${line}\n`);
  if (nextAfter !== null)
    process.stdout.write(
      `next page: ${budgetEventsCommand(options.store, {
        ...(options.participant === undefined ? {} : { participant: options.participant }),
        afterSequence: nextAfter,
        limit: options.limit,
      })}\n`,
    );
}
