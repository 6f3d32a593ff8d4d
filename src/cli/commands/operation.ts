import type { Command } from "commander";
import type { Operation } from "../../operations/index.js";
import { ExitCode, printJson } from "../exit.js";
import { formatDuration, isoTime } from "../html-timeline-time.js";
import { storeOption, withStore } from "../store-option.js";

/** The record times of the operation's kind: invocation start/end, or tool-action admit/dispatch/settle. */
function timesToWire(operation: Operation): Record<string, string | null> {
  if (operation.kind === "scheduler_invocation")
    return { started_at: operation.startedAt ?? null, ended_at: operation.endedAt ?? null };
  return {
    admitted_at: operation.admittedAt ?? null,
    dispatched_at: operation.dispatchedAt ?? null,
    settled_at: operation.settledAt ?? null,
  };
}

/** The durations between the operation's recorded times, for people (e.g. "admitted → settled"). */
export function operationDurations(operation: Operation): [string, string][] {
  const spans: [string, string | undefined, string | undefined][] =
    operation.kind === "scheduler_invocation"
      ? [["started → ended", operation.startedAt, operation.endedAt]]
      : [
          ["admitted → dispatched", operation.admittedAt, operation.dispatchedAt],
          ["dispatched → settled", operation.dispatchedAt, operation.settledAt],
          ["admitted → settled", operation.admittedAt, operation.settledAt],
        ];
  const out: [string, string][] = [];
  for (const [label, from, to] of spans) {
    const a = isoTime(from);
    const b = isoTime(to);
    if (a !== undefined && b !== undefined) out.push([label, formatDuration(b - a)]);
  }
  return out;
}

/** The wire form of an operation: snake_case, every field of its kind present. */
export function operationToWire(operation: Operation): Record<string, unknown> {
  return {
    id: operation.id,
    parent_id: operation.parentId,
    kind: operation.kind,
    state: operation.state,
    settlement: operation.settlement ?? null,
    resolution: operation.resolution
      ? {
          resolution: operation.resolution.resolution,
          note: operation.resolution.note,
          resolved_at: operation.resolution.resolvedAt,
        }
      : null,
    ...timesToWire(operation),
    updated_at: operation.updatedAt,
  };
}

/** `raes operation ID`: one scheduler or tool-action operation. */
export function registerOperationCommand(program: Command): void {
  storeOption(
    program
      .command("operation <id>")
      .description("show one operation (an outer invocation or a tool action)")
      .option("--json", "print the operation as JSON"),
  ).action(async (id: string, options: { store: string; json?: boolean }) => {
    const operation = await withStore(options.store, (store) => store.getOperation(id), { create: false });
    if (!operation) {
      if (options.json) printJson({ error: "operation.not-found", id });
      else process.stderr.write(`raes: no operation ${id} in ${options.store}\n`);
      process.exitCode = ExitCode.findings;
      return;
    }
    if (options.json) return printJson(operationToWire(operation));
    const wire = operationToWire(operation);
    for (const [key, value] of Object.entries(wire)) {
      if (value !== null)
        process.stdout.write(
          `${key.padEnd(13)} ${typeof value === "object" ? JSON.stringify(value) : String(value)}\n`,
        );
    }
    for (const [label, duration] of operationDurations(operation))
      process.stdout.write(`${label.padEnd(21)} ${duration}\n`);
  });
}
