import { type Command, InvalidArgumentError, Option } from "commander";
import type { OperationOwner, OwnedOperationEntry } from "../../operations/index.js";
import { printableStoreUrl } from "../../printed/index.js";
import {
  DEFAULT_OPERATION_LIMIT,
  OperationKind,
  type OperationQuery,
  OperationState,
} from "../../records/index.js";
import { writeJsonObject } from "../json-stream.js";
import { storeOption, withStore } from "../store-option.js";
import { operationEntryToWire } from "./operation-wire.js";

interface OperationsOptions {
  readonly store: string;
  readonly participant?: string;
  readonly state?: OperationState;
  readonly kind?: OperationKind;
  readonly since?: string;
  readonly limit: number;
  readonly json?: boolean;
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses `--since`: an ISO-8601 date or time, or a duration back from now (`90s`, `15m`, `2h`, `7d`),
 * into the stored form (UTC, microseconds), so it compares with stored times as text.
 */
export function sinceTime(value: string, now: () => number = Date.now): string {
  const relative = /^([0-9]{1,9})([smhd])$/.exec(value);
  const ms = relative
    ? now() - Number(relative[1]) * (UNIT_MS[relative[2] as string] as number)
    : /^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(value)
      ? Date.parse(value)
      : Number.NaN;
  if (!Number.isFinite(ms))
    throw new InvalidArgumentError(
      "use an ISO-8601 time (2026-11-30T12:00:00Z) or a duration (90s, 15m, 2h, 7d)",
    );
  return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
}

function positiveLimit(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > 100_000)
    throw new InvalidArgumentError("use a whole number from 1 to 100000");
  return n;
}

/** The state for people: with its settlement, and for an in-flight one whose owner is gone, who and what next. */
export function stateText(entry: OwnedOperationEntry, phrase: (owner: OperationOwner) => string): string {
  const state =
    entry.settlement && entry.settlement !== entry.state
      ? `${entry.state} (${entry.settlement})`
      : entry.state;
  if (entry.owner === undefined || entry.onRecovery === undefined) return state;
  return `${state} (${phrase(entry.owner)}; ${entry.onRecovery} on recovery)`;
}

/** What a row adds for its kind: the MCP tool name and unknown reason, or the refusal counts. */
function detail(entry: OwnedOperationEntry): string {
  const parts: string[] = [];
  if (entry.toolName) parts.push(`tool=${entry.toolName}`);
  if (entry.unknownReason) parts.push(`reason=${entry.unknownReason}`);
  for (const [code, n] of Object.entries(entry.refusals ?? {})) parts.push(`refused ${code}=${n}`);
  return parts.join(" ");
}

/** One line per operation for people: time, kind (as `--kind` names it), state, participant, id, detail. */
function printTable(
  entries: readonly OwnedOperationEntry[],
  phrase: (owner: OperationOwner) => string,
): void {
  const rows = entries.map((e) => [
    e.createdAt,
    e.kind,
    stateText(e, phrase),
    e.participantAddress,
    e.id,
    detail(e),
  ]);
  const header = ["CREATED", "KIND", "STATE", "PARTICIPANT", "ID", "DETAIL"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  for (const row of [header, ...rows]) {
    const cells = row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] as number)));
    process.stdout.write(`${cells.join("  ").trimEnd()}\n`);
  }
}

/** `raes operations`: list outer invocations and tool actions, newest first, with filters. */
export function registerOperationsCommand(program: Command): void {
  storeOption(
    program
      .command("operations")
      .option("--participant <address>", "only this participant's operations")
      .addOption(
        new Option("--state <state>", "only operations in this state").choices(Object.values(OperationState)),
      )
      .addOption(
        new Option("--kind <kind>", "only this kind of operation").choices(Object.values(OperationKind)),
      )
      .option(
        "--since <time>",
        "only operations created at or after TIME (ISO-8601, or 90s, 15m, 2h, 7d ago)",
        (v) => sinceTime(v),
      )
      .option("--limit <n>", "at most N operations", positiveLimit, DEFAULT_OPERATION_LIMIT)
      .option("--json", 'print {"operations": [...]} as JSON'),
  ).action(async (options: OperationsOptions) => {
    const query: OperationQuery = {
      ...(options.participant === undefined ? {} : { participantAddress: options.participant }),
      ...(options.state === undefined ? {} : { state: options.state }),
      ...(options.kind === undefined ? {} : { kind: options.kind }),
      ...(options.since === undefined ? {} : { since: options.since }),
      limit: options.limit,
    };
    const { listOperationsWithOwners, ownedOperationPages, ownerPhrase } = await import(
      "../../operations/index.js"
    );
    // JSON streams a page at a time, each page written before the next is read (docs/hardening.md).
    if (options.json)
      return withStore(
        options.store,
        (store) =>
          writeJsonObject(process.stdout, {
            operations: { pages: ownedOperationPages(store, query), map: operationEntryToWire },
          }),
        { create: false },
      );
    const entries = await withStore(options.store, (store) => listOperationsWithOwners(store, query), {
      create: false,
    });
    if (entries.length === 0)
      process.stderr.write(`raes: no operations match in ${printableStoreUrl(options.store)}\n`);
    else printTable(entries, ownerPhrase);
    const gone = entries.filter((e) => e.onRecovery !== undefined).length;
    if (gone > 0)
      process.stderr.write(
        `raes: ${gone === 1 ? "1 operation is" : `${gone} operations are`} in doubt: the runtime that ran ${gone === 1 ? "it" : "them"} is gone; ` +
          "`raes run` with the same scenario and --store recovers them (nothing is retried), then `raes resolve`\n",
      );
  });
}
