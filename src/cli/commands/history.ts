import type { Command } from "commander";
import type { HistoryEvent } from "../../history/index.js";
import { printJson } from "../exit.js";
import { storeOption, withStore } from "../store-option.js";

interface HistoryOptions {
  readonly store: string;
  readonly participant?: string;
  readonly episode?: string;
  readonly json?: boolean;
}

function describeEvent(event: HistoryEvent): string {
  const tool = event.invocation_tool_context;
  const status = event.action_result ? ` ${event.action_result.status}` : "";
  const observation = event.observation_status ? ` (${event.observation_status})` : "";
  const via = tool ? ` tool_call=${tool.tool_call_id}` : "";
  return `${String(event.sequence).padStart(6)} ${event.event_type.padEnd(25)} ${event.action_instance_id}${via}${status}${observation}`;
}

/** `raes history`: behavior history events in commit order. */
export function registerHistoryCommand(program: Command): void {
  storeOption(
    program
      .command("history")
      .description("print behavior history events in commit order")
      .option("--participant <address>", "only this participant's events")
      .option("--episode <id>", "only this episode's events")
      .option("--json", 'print {"events": [...]} as JSON'),
  ).action(async (options: HistoryOptions) => {
    const events = await withStore(options.store, (store) =>
      store.listEvents({
        ...(options.participant === undefined ? {} : { participantAddress: options.participant }),
        ...(options.episode === undefined ? {} : { episodeId: options.episode }),
      }),
    );
    if (options.json) return printJson({ events });
    for (const event of events) process.stdout.write(`${describeEvent(event)}\n`);
    if (events.length === 0) process.stdout.write("no history events\n");
  });
}
