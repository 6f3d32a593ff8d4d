import type { Command } from "commander";
import type { OperationOwner } from "../../operations/index.js";
import { formatDuration, isoTime } from "../../printed/index.js";
import { type Operation, operationFromToolAction } from "../../records/index.js";
import type { ControlPlaneStore } from "../../store/index.js";
import { ExitCode, printJson } from "../exit.js";
import { storeOption, withStore } from "../store-option.js";
import { operationToWire, ownerToWire } from "./operation-wire.js";

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

/** Who owns an in-flight operation's participant, and what recovery makes of it when that owner is gone. */
async function ownerOf(
  store: ControlPlaneStore,
  operation: Operation,
): Promise<{ owner: OperationOwner; onRecovery?: string } | undefined> {
  const { inFlight, OwnerStatus, participantOwner, recoveredState } = await import(
    "../../operations/index.js"
  );
  if (!inFlight(operation.state)) return undefined;
  const participant =
    operation.kind === "scheduler_invocation"
      ? (await store.getInvocation(operation.id))?.participantAddress
      : (await store.getToolAction(operation.id))?.participantAddress;
  if (participant === undefined) return undefined;
  const owner = await participantOwner(store, participant);
  const after =
    owner.status === OwnerStatus.live ? undefined : recoveredState(operation.kind, operation.state);
  return { owner, ...(after === undefined ? {} : { onRecovery: after }) };
}

/** `raes operation ID`: one scheduler or tool-action operation. */
export function registerOperationCommand(program: Command): void {
  describeOperationCommand(program.command("operation <id>"));
}

/**
 * Gives a command with an `<id>` argument the options and action of `raes operation` (it is also
 * `raes operations show`). The id may be any unique prefix or suffix of an operation id.
 */
export function describeOperationCommand(command: Command): Command {
  return storeOption(command.option("--json", "print the operation as JSON")).action(
    async (given: string, options: { store: string; json?: boolean }) => {
      const { OperationLookupCode, OperationLookupError, operationId } = await import(
        "../../operations/index.js"
      );
      let found: Awaited<ReturnType<typeof showOperation>>;
      try {
        found = await withStore(
          options.store,
          async (store) => showOperation(store, await operationId(store, given)),
          { create: false },
        );
      } catch (error) {
        if (!(error instanceof OperationLookupError) || !options.json) throw error;
        printJson({ error: error.code, message: error.message, id: given, matches: error.matches });
        process.exitCode = error.code === OperationLookupCode.ambiguous ? ExitCode.usage : ExitCode.findings;
        return;
      }
      printOperation(found, options.json === true);
    },
  );
}

/** One operation with its children (an invocation's tool actions, in admission order) and its owner. */
async function showOperation(store: ControlPlaneStore, id: string) {
  const operation = (await store.getOperation(id)) as Operation;
  const children =
    operation.kind === "scheduler_invocation"
      ? (await store.listToolActions({ invocationId: id })).map(operationFromToolAction)
      : [];
  return { operation, children, owned: await ownerOf(store, operation) };
}

async function printOperation(
  found: Awaited<ReturnType<typeof showOperation>>,
  json: boolean,
): Promise<void> {
  const { operation, children, owned } = found;
  const wire = operationToWire(operation);
  if (operation.kind === "scheduler_invocation") wire.children = children.map((c) => c.id);
  if (owned) {
    const { ownerPhrase } = await import("../../operations/index.js");
    if (json) wire.owner = ownerToWire(owned.owner);
    else wire.owner = ownerPhrase(owned.owner);
    if (owned.onRecovery) wire.on_recovery = owned.onRecovery;
  }
  if (json) return printJson(wire);
  for (const [key, value] of Object.entries(wire)) {
    if (value === null || key === "children") continue;
    if (
      (key === "refusals" || key === "refused_calls" || key === "diagnostics") &&
      Object.keys(value as object).length === 0
    )
      continue;
    process.stdout.write(
      `${key.padEnd(14)} ${typeof value === "object" ? JSON.stringify(value) : String(value)}\n`,
    );
  }
  for (const [label, duration] of operationDurations(operation))
    process.stdout.write(`${label.padEnd(21)} ${duration}\n`);
  if (children.length > 0) process.stdout.write(`children (${children.length}):\n`);
  for (const child of children) process.stdout.write(`  ${childLine(child)}\n`);
}

/** One child tool action on one line: id, state (settlement), MCP tool name, unknown or withheld reason. */
function childLine(child: Operation): string {
  const state =
    child.settlement && child.settlement !== child.state
      ? `${child.state} (${child.settlement})`
      : child.state;
  const tool = child.toolName ? `  tool ${child.toolName}` : "";
  const why = child.unknownReason ?? child.withheldReason;
  const reason = why ? `  reason ${why}` : "";
  const approval = child.approval;
  const decided = approval?.operator ? ` by ${approval.operator}` : "";
  const held = approval ? `  approval ${approval.state}${decided}` : "";
  return `${child.id}  ${state}${tool}${reason}${held}`;
}
