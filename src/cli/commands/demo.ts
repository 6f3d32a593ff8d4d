import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import type { DemoInvocation, DemoSummary } from "../../demo/index.js";
import { absoluteStoreUrl, printableStoreUrl, printedCommand, resolveCommands } from "../../printed/index.js";
import { MEMORY_STORE_URL } from "../../records/index.js";
import { makeDirectories } from "../directories.js";
import { ExitCode, printJson } from "../exit.js";
import { outputFile } from "../input-files.js";
import { byParticipant, type NextStep, nextStepLines, nextSteps } from "../output/index.js";
import { makeStoreFolder, storeUrl } from "../store-option.js";

/**
 * The demo's store, as the demo module's DEMO_STORE_URL (a test holds them equal): named here so the help
 * text does not load the demo, the runtime and the MCP SDK.
 */
export const DEMO_STORE_DEFAULT = "sqlite:.raes/demo.db";

interface DemoCliOptions {
  readonly store: string;
  readonly html: string;
  readonly json?: boolean;
  readonly profile: "v1" | "v2";
}

const DEFAULT_HTML = ".raes/demo.html";

const HELP = `
What happens: the example scenario (examples/enterprise-participant-evidence-loop.sdl.yaml)
runs with a demo participant runtime on the embedded SQLite store. Per invocation, the runtime
serves the invocation's tool-action port on a private socket and starts a scripted MCP agent (a
real MCP SDK client) whose MCP server is \`raes mcp-gateway\` (map: examples/demo/mcp-map.yaml) in
front of a demo MCP server; that server's tools make real HTTP requests to a local service on
127.0.0.1. The agent makes successful calls, one call the port refuses (target_outside_binding),
one call to a tool the map hides (tool_not_mapped), and one call the upstream never answers, so
its effects are unknown: it settles indeterminate and the participant's scheduler stops. The
clock is stepped until the scheduler stops.

With --profile v2 the same story runs under the v2 activity policy
(examples/enterprise-participant-activity-v2.sdl.yaml, public demo seed 42…42): attempts are drawn
by RAES's scheduler, and the timeline shows each attempt's candidate, disposition and retry chain.

The default store ${DEMO_STORE_DEFAULT} is deleted and recreated on every run, so the demo is
repeatable; a store you name with --store is used as it is.

Exit codes:
  0  the demo ran and no scheduler stopped
  1  a scheduler stopped on an indeterminate tool action: the demo's expected ending (resolve it
     with the printed \`raes resolve\` command); also any other stop, a failed agent run, or a
     demo that could not run
  2  usage error
`;

function counts(map: Record<string, number>): string {
  const entries = Object.entries(map);
  return entries.length === 0 ? "0" : entries.map(([k, v]) => `${k}=${v}`).join(" ");
}

function printInvocation({ summary, run }: DemoInvocation): void {
  const outer = summary.outerStatus ?? "no valid result";
  process.stdout.write(`invocation ${summary.invocationId}: ${summary.state} (outer ${outer})\n`);
  if (!run?.report) {
    process.stdout.write(
      `  the agent printed no report (exit ${run?.exitCode ?? "?"}); its stderr ends with:\n${run?.stderr ?? ""}\n`,
    );
    return;
  }
  process.stdout.write(`  tools the agent was shown: ${run.report.tools.join(", ")}\n`);
  for (const call of run.report.calls) {
    const detail = [call.code, call.actionInstanceId].filter((x) => x !== undefined).join("  ");
    process.stdout.write(`  ${call.tool.padEnd(22)} ${call.outcome.padEnd(14)} ${detail}\n`);
  }
}

/** Each indeterminate action's `raes resolve` commands, one per decision, each runnable as printed. */
function resolveLines(summary: DemoSummary): string[] {
  return summary.indeterminate.flatMap((id) => {
    const commands = resolveCommands(id, summary.store);
    return [commands.confirmed, commands.absent];
  });
}

/** Each stopped participant's next step; an action id names its participant second (docs/design.md). */
function demoNextSteps(summary: DemoSummary): NextStep[] {
  const unresolved = byParticipant(
    summary.indeterminate.map((id) => ({ id, participantAddress: id.split(":")[1] ?? "" })),
  );
  return nextSteps(
    summary.stopped.map((s) => ({ participant: s.participant, reason: s.reason ?? undefined })),
    unresolved,
    summary.store,
  );
}

function printSummary(summary: DemoSummary, html: string, elapsedMs: number): void {
  const lines = [
    "",
    `store: ${summary.store}${summary.removed_previous_store ? " (the previous demo store was deleted first)" : ""}`,
    `invocations ${summary.invocations} | tool actions ${counts(summary.tool_actions)} | refusals ${counts(summary.refusals)} | gateway refusals ${counts(summary.gateway_refusals)}`,
    `portal requests: ${counts(summary.portal_requests)}`,
    ...(summary.agent_failures > 0 ? [`agent runs that failed: ${summary.agent_failures} (see above)`] : []),
    `timeline: ${html}`,
    `history: ${printedCommand(["history", "--store", printableStoreUrl(summary.store)])}`,
    ...nextStepLines(demoNextSteps(summary)),
    `took ${(elapsedMs / 1000).toFixed(1)} s`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** The demo's `--store`: a store that outlives the demo, since every command it prints names it. */
function demoStoreUrl(value: string): string {
  if (value === MEMORY_STORE_URL)
    throw new InvalidArgumentError(
      "the demo prints resolve, resume and history commands for its store, and a memory: store ends with the demo: name a sqlite: or postgres:// store",
    );
  return storeUrl(value);
}

/** `raes demo`: the example scenario end to end, with a real MCP agent behind `raes mcp-gateway`. */
export function registerDemoCommand(program: Command): void {
  program
    .command("demo")
    .option("--store <url>", "control-plane store URL", demoStoreUrl, DEMO_STORE_DEFAULT)
    .option("--html <file>", "where to write the HTML timeline", outputFile, DEFAULT_HTML)
    .option("--json", "print the summary as JSON")
    .addOption(
      new Option(
        "--profile <profile>",
        "v1: the evidence-loop example; v2: the activity-policy example (seed 42…42)",
      )
        .choices(["v1", "v2"])
        .default("v1"),
    )
    .addHelpText("after", HELP)
    .action(async (options: DemoCliOptions) => {
      const started = Date.now();
      const { runDemo } = await import("../../demo/index.js");
      const { readTimelineInput, renderTimelineHtml } = await import("../../timeline/index.js");
      const html = resolve(options.html);
      makeStoreFolder(options.store);
      const summary = await runDemo({
        storeUrl: options.store,
        profile: options.profile,
        ...(options.json ? {} : { onInvocation: printInvocation }),
        inspect: async (store) => {
          makeDirectories(dirname(html));
          const input = await readTimelineInput(store);
          // The page's resolve commands name the demo's store, from any directory.
          writeFileSync(
            html,
            renderTimelineHtml({ ...input, title: "raes demo", storeUrl: absoluteStoreUrl(options.store) }),
          );
        },
      });
      const elapsedMs = Date.now() - started;
      if (options.json)
        printJson({
          ...summary,
          resolve: resolveLines(summary),
          next: demoNextSteps(summary),
          html,
          elapsed_ms: elapsedMs,
        });
      else printSummary(summary, options.html, elapsedMs);
      const findings = summary.stopped.length > 0 || summary.agent_failures > 0;
      process.exitCode = findings ? ExitCode.findings : ExitCode.ok;
    });
}
