import { dirname, resolve } from "node:path";
import { type Command, Option } from "commander";
import type { HistoryEvent } from "../../history/index.js";
import { absoluteStoreUrl } from "../../printed/index.js";
import type { ActivityContinuation } from "../../records/index.js";
import type { HistoryQuery, SchedulerRecord } from "../../store/index.js";
import { makeDirectories } from "../directories.js";
import { outputFile } from "../input-files.js";
import { printNothingMatched, writeFileParts, writeJsonObject, writeText } from "../output/index.js";
import { storeOption, withStore } from "../store-option.js";

interface HistoryOptions {
  readonly store: string;
  readonly participant?: string;
  readonly episode?: string;
  readonly json?: boolean;
  readonly html?: string;
}

function timelineTitle(options: HistoryOptions): string {
  const filters = [
    ...(options.participant === undefined ? [] : [`participant ${options.participant}`]),
    ...(options.episode === undefined ? [] : [`episode ${options.episode}`]),
  ];
  return filters.length > 0 ? `RAES behavior history — ${filters.join(" · ")}` : "RAES behavior history";
}

async function writeTimeline(options: HistoryOptions, query: HistoryQuery, file: string): Promise<void> {
  const { readTimelinePage, summaryHtmlParts } = await import("../../timeline/index.js");
  const storeUrl = absoluteStoreUrl(options.store);
  // One pass over the history: each invocation drawn as it completes, its events dropped (docs/hardening.md).
  const { page, chain } = await withStore(
    options.store,
    (store) => readTimelinePage(store, query, storeUrl),
    {
      create: false,
    },
  );
  try {
    const path = resolve(file);
    makeDirectories(dirname(path));
    // Written a part at a time: the page is never one string in memory.
    await writeFileParts(path, summaryHtmlParts(page, { title: timelineTitle(options), chain }));
    process.stdout.write(`${path}\n`);
  } finally {
    page.panels.close();
  }
}

function describeEvent(event: HistoryEvent): string {
  const tool = event.invocation_tool_context;
  const status = event.action_result ? ` ${event.action_result.status}` : "";
  const observation = event.observation_status ? ` (${event.observation_status})` : "";
  const via = tool ? ` tool_call=${tool.tool_call_id}` : "";
  const p = event.activity_provenance;
  const activity = p
    ? ` [${p.candidate_id} ${p.timing_disposition}${p.predecessor_attempt_id ? ` retry of ${p.predecessor_attempt_id}` : ""}]`
    : "";
  return `${String(event.sequence).padStart(6)} ${event.event_type.padEnd(25)} ${event.action_instance_id}${via}${status}${observation}${activity}`;
}

/** One line per v2 scheduler: RAES's continuation fields (docs/design.md §8). */
function describeContinuation(
  scheduler: SchedulerRecord,
  continuationView: (c: ActivityContinuation) => Record<string, unknown>,
): string | undefined {
  const c = scheduler.activity;
  if (!c) return undefined;
  const view = continuationView(c);
  const fields = Object.entries(view).map(
    ([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`,
  );
  return `continuation ${scheduler.participantAddress} ${fields.join(" ")}`;
}

/** A scheduler as `raes history --json` prints it: lifecycle, and for v2 RAES's continuation fields. */
function schedulerJson(
  scheduler: SchedulerRecord,
  continuationView: (c: ActivityContinuation) => Record<string, unknown>,
): Record<string, unknown> {
  return {
    participant_address: scheduler.participantAddress,
    policy_address: scheduler.policyAddress,
    lifecycle: scheduler.lifecycle,
    stop_reason: scheduler.stopReason ?? null,
    continuation: scheduler.activity ? continuationView(scheduler.activity) : null,
  };
}

/** `raes history`: behavior history events in commit order. */
export function registerHistoryCommand(program: Command): void {
  storeOption(
    program
      .command("history")
      .option("--participant <address>", "only this participant's events")
      .option("--episode <id>", "only this episode's events")
      .option("--json", 'print {"events": [...], "schedulers": [...]} as JSON (v2: with the continuation)')
      .addOption(
        new Option("--html <file>", "write a self-contained HTML timeline to FILE and print its path")
          .conflicts("json")
          .argParser(outputFile),
      ),
  ).action(async (options: HistoryOptions) => {
    const query: HistoryQuery = {
      ...(options.participant === undefined ? {} : { participantAddress: options.participant }),
      ...(options.episode === undefined ? {} : { episodeId: options.episode }),
    };
    if (options.html !== undefined) return writeTimeline(options, query, options.html);
    const { eventPages } = await import("../../store/index.js");
    await withStore(
      options.store,
      async (store) => {
        const shown = (await store.listSchedulers()).filter(
          (s) => options.participant === undefined || s.participantAddress === options.participant,
        );
        // The runtime loads only when a v2 scheduler has a continuation to show.
        const view = shown.some((s) => s.activity)
          ? (await import("../../runtime/index.js")).continuationView
          : () => ({});
        // Events stream a page at a time, each page written before the next is read (docs/hardening.md).
        if (options.json)
          return writeJsonObject(process.stdout, {
            events: { pages: eventPages(store, query) },
            schedulers: { value: shown.map((s) => schedulerJson(s, view)) },
          });
        let none = true;
        for await (const page of eventPages(store, query)) {
          none = false;
          await writeText(process.stdout, page.map((event) => `${describeEvent(event)}\n`).join(""));
        }
        if (none) printNothingMatched("history events", options.store);
        for (const scheduler of shown) {
          const line = describeContinuation(scheduler, view);
          if (line) process.stdout.write(`${line}\n`);
        }
      },
      { create: false },
    );
  });
}
