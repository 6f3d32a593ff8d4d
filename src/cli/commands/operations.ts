import { type Command, InvalidArgumentError, Option } from "commander";
import type { OperationOwner, OperatorNeed, OwnedOperationEntry } from "../../operations/index.js";
import { approvalCommands, needsOperatorCommand, resolveCommands } from "../../printed/index.js";
import {
  DEFAULT_OPERATION_LIMIT,
  OperationKind,
  type OperationQuery,
  OperationState,
  type ParticipantExecutionServiceState,
  type ResourceUseRow,
  resourceUseRows,
} from "../../records/index.js";
import type { ControlPlaneStore } from "../../store/index.js";
import { CliErrorCode, ExitCode, printError, printJson } from "../exit.js";
import {
  type Column,
  printNothingMatched,
  TABLE_WIDTH,
  tableLines,
  writeJsonObject,
} from "../output/index.js";
import { storeOption, withStore } from "../store-option.js";
import {
  budgetEventWire,
  printBudgetEvents,
  RECENT_BUDGET_EVENTS,
  recentBudgetEventLines,
  recentBudgetEvents,
} from "./budget-events.js";
import { describeOperationCommand } from "./operation.js";
import { operationEntryToWire } from "./operation-wire.js";

interface OperationsOptions {
  readonly store: string;
  readonly participant?: string;
  readonly state?: OperationState;
  readonly kind?: OperationKind;
  readonly since?: string;
  readonly limit: number;
  readonly needsOperator?: boolean;
  readonly budgets?: boolean;
  readonly budgetEvents?: boolean;
  readonly after?: number;
  readonly wide?: boolean;
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

function pageStart(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError("use a whole number from 0");
  return n;
}

/** The state for people: with its settlement, and for an indeterminate action, whether and how it was resolved. */
export function stateText(entry: OwnedOperationEntry): string {
  const state =
    entry.settlement && entry.settlement !== entry.state
      ? `${entry.state} (${entry.settlement})`
      : entry.state;
  if (entry.resolution) return `${state} (resolved ${entry.resolution.resolution})`;
  return state;
}

/** For an in-flight operation whose owner is gone: who, and what recovery makes of it. */
function inDoubt(entry: OwnedOperationEntry, phrase: (owner: OperationOwner) => string): string | undefined {
  if (entry.owner === undefined || entry.onRecovery === undefined) return undefined;
  return `${phrase(entry.owner)}; ${entry.onRecovery} on recovery`;
}

/** What a row adds for its kind: the MCP tool name and unknown or withheld reason, or the refusal counts. */
function detail(entry: OwnedOperationEntry): string {
  const parts: string[] = [];
  if (entry.toolName) parts.push(`tool=${entry.toolName}`);
  if (entry.unknownReason) parts.push(`reason=${entry.unknownReason}`);
  if (entry.withheldReason) parts.push(`reason=${entry.withheldReason}`);
  for (const [code, n] of Object.entries(entry.refusals ?? {})) parts.push(`refused ${code}=${n}`);
  return parts.join(" ");
}

/** A listed operation, and for `--needs-operator` what it waits for. */
interface Row {
  readonly entry: OwnedOperationEntry;
  readonly need?: OperatorNeed;
}

/**
 * The table for people. It fits 120 columns: ids are their shortest unique ends (each one `raes
 * operation` takes), times to the second, no participant column (the id's end names it). `--wide`
 * prints every id, time and participant whole.
 */
function tableOf(
  rows: readonly Row[],
  shortIds: ReadonlyMap<string, string>,
  phrase: (owner: OperationOwner) => string,
  wide: boolean,
): string[] {
  const needs = rows.some((r) => r.need !== undefined);
  const columns: Column[] = [
    ...(needs ? [{ header: "NEEDS" }] : []),
    { header: "CREATED" },
    { header: "KIND" },
    { header: "STATE", cut: true },
    ...(wide ? [{ header: "PARTICIPANT" }] : []),
    { header: "ID" },
    { header: "DETAIL", cut: true },
  ];
  const cells = rows.map(({ entry: e, need }) => {
    const doubt = inDoubt(e, phrase);
    // Within 120 columns, an in-doubt row says `running → indeterminate` and names its owner in DETAIL.
    const gone = e.owner !== undefined && e.onRecovery !== undefined;
    const state = wide
      ? doubt
        ? `${stateText(e)} (${doubt})`
        : stateText(e)
      : gone
        ? `${stateText(e)} → ${e.onRecovery}`
        : stateText(e);
    const owner = !wide && gone && e.owner ? [phrase(e.owner)] : [];
    const more = [...owner, detail(e)].filter((x) => x !== "").join("; ");
    return [
      ...(needs ? [need ?? ""] : []),
      wide ? e.createdAt : `${e.createdAt.slice(0, 10)} ${e.createdAt.slice(11, 19)}`,
      e.kind,
      state,
      ...(wide ? [e.participantAddress] : []),
      wide ? e.id : (shortIds.get(e.id) ?? e.id),
      more,
    ];
  });
  return tableLines(columns, cells, wide ? undefined : TABLE_WIDTH);
}

/** The `--budgets` table: v3 budget use per owner and window (docs/guide/harness.md#autonomous-execution-v3). */
function budgetTable(rows: readonly ResourceUseRow[], wide: boolean): string[] {
  const columns: Column[] = [
    { header: "OWNER" },
    { header: "BUDGET" },
    ...(wide ? [{ header: "KIND" }] : []),
    { header: "WINDOW" },
    { header: "USED" },
    { header: "LIMIT" },
    { header: "RESERVED" },
    { header: "THROTTLED" },
    { header: "GEN" },
    ...(wide ? [{ header: "POLICY" }] : []),
  ];
  const cells = rows.map((r) => [
    r.owner,
    r.budget_id,
    ...(wide ? [r.resource_kind] : []),
    r.window ? `${r.window[0]}–${r.window[1]}` : "-",
    `${r.used} ${r.unit}`,
    String(r.limit),
    String(r.reserved),
    String(r.throttled),
    String(r.generation),
    ...(wide ? [r.policy_address] : []),
  ]);
  return tableLines(columns, cells, wide ? undefined : TABLE_WIDTH);
}

/**
 * Prints `--budgets`: every stored v3 budget's use in its current window, per owner, then how many budget
 * events the store keeps and the most recent of them, with the command that pages through every one.
 */
async function printBudgets(options: OperationsOptions): Promise<void> {
  const { rows, counts, recent } = await withStore(
    options.store,
    async (store) => ({
      rows: resourceUseRows(await store.listSchedulers()),
      ...(await recentBudgetEvents(store)),
    }),
    {
      create: false,
    },
  );
  if (options.json)
    return printJson({
      budgets: rows,
      budget_events: { ...counts, recent: recent.map(budgetEventWire) },
    });
  if (rows.length === 0) return printNothingMatched("v3 resource budgets", options.store);
  for (const line of budgetTable(rows, options.wide === true)) process.stdout.write(`${line}\n`);
  for (const line of recentBudgetEventLines(counts, recent, options.store, options.wide === true))
    process.stdout.write(`${line}\n`);
}

/**
 * With `--participant`: its execution service as every readback shows it (lifecycle, health with the
 * pacing losses joined, generation), RAES's `execution_services` of the status view; empty when the store
 * has no service of it (docs/guide/operations.md, "Controlling one participant").
 */
async function participantServices(
  store: ControlPlaneStore,
  options: OperationsOptions,
): Promise<ParticipantExecutionServiceState[]> {
  if (options.participant === undefined) return [];
  const { readParticipantServices } = await import("../../operations/index.js");
  return (await readParticipantServices(store, options.participant)).map((r) => r.service);
}

/** The service line above the table: `P: service running, healthy (generation 1, accepting work)`. */
function serviceLine(participant: string, service: ParticipantExecutionServiceState): string {
  const work = service.accepting_new_work ? "accepting work" : "not accepting work";
  return `${participant}: service ${service.observed_lifecycle}, ${service.health} (generation ${service.generation}, ${work})`;
}

/** The listed rows: what waits for a person with `--needs-operator`, else the filtered operations. */
async function listRows(store: ControlPlaneStore, options: OperationsOptions): Promise<Row[]> {
  const { listOperationsWithOwners, listOperatorWaits } = await import("../../operations/index.js");
  const participant = options.participant === undefined ? {} : { participantAddress: options.participant };
  const since = options.since === undefined ? {} : { since: options.since };
  if (options.needsOperator === true) {
    const waits = await listOperatorWaits(store, { ...participant, ...since, limit: options.limit });
    return waits.map((w) => ({ entry: w.entry, need: w.need }));
  }
  return (await listOperationsWithOwners(store, operationQuery(options))).map((entry) => ({ entry }));
}

/** The store query of the filters given. */
function operationQuery(options: OperationsOptions): OperationQuery {
  return {
    ...(options.participant === undefined ? {} : { participantAddress: options.participant }),
    ...(options.state === undefined ? {} : { state: options.state }),
    ...(options.kind === undefined ? {} : { kind: options.kind }),
    ...(options.since === undefined ? {} : { since: options.since }),
    limit: options.limit,
  };
}

/**
 * Under the `--needs-operator` table, each row's decision as commands that run as printed (by its
 * short id, which `raes resolve` takes): one per possible answer.
 */
function decisionLines(
  rows: readonly Row[],
  shortIds: ReadonlyMap<string, string>,
  store: string,
  lapsed: ReadonlyMap<string, string>,
): string[] {
  const waiting = rows.filter((r) => r.need === "resolution");
  const held = rows.filter((r) => r.need === "pending_approval");
  const lines: string[] = [];
  if (waiting.length > 0)
    lines.push(
      "",
      "resolve each with one of (the effect happened / did not):",
      ...waiting.flatMap(({ entry }) => {
        const c = resolveCommands(shortIds.get(entry.id) ?? entry.id, store);
        return [`  ${c.confirmed}`, `  ${c.absent}`];
      }),
    );
  if (held.length > 0)
    lines.push(
      "",
      "approve (the tool runs once) or deny (it never runs) each held call:",
      ...held.flatMap(({ entry }) => {
        const c = approvalCommands(shortIds.get(entry.id) ?? entry.id, store);
        // An approve that would be refused is not offered: the deny still records the decision.
        const why = lapsed.get(entry.id);
        return why === undefined
          ? [`  ${c.approve}`, `  ${c.deny}`]
          : [`  ${c.deny}`, `    (no approve: ${why})`];
      }),
    );
  return lines;
}

/** `raes operations`: list outer invocations and tool actions, newest first, with filters; `show ID` shows one. */
export function registerOperationsCommand(program: Command): void {
  const operations = storeOption(
    program
      .command("operations")
      .option("--participant <address>", "only this participant's operations")
      .addOption(
        new Option("--state <state>", "only operations in this state").choices(Object.values(OperationState)),
      )
      .addOption(
        new Option("--kind <kind>", "only this kind of operation").choices(Object.values(OperationKind)),
      )
      .addOption(
        new Option(
          "--needs-operator",
          "only what waits for a person (unresolved indeterminate actions, pending approvals), each marked with what it needs",
        ).conflicts(["state", "kind"]),
      )
      .addOption(
        new Option(
          "--budgets",
          `v3 resource budget use per owner and window instead of operations, then how many budget events the store keeps and the last ${RECENT_BUDGET_EVENTS} (with --json: {"budgets": [...], "budget_events": {logged, kept, recent}})`,
        ).conflicts(["needsOperator", "state", "kind", "participant", "since", "budgetEvents"]),
      )
      .addOption(
        new Option(
          "--budget-events",
          'every v3 budget event the store keeps (reserve, commit, release, throttle), in order, --limit at a time, then the command for the next page (with --json: {"budget_events": [...], "next_after": n | null})',
        ).conflicts(["needsOperator", "state", "kind", "since"]),
      )
      .option(
        "--after <sequence>",
        "with --budget-events: only events after this sequence (a page's start)",
        pageStart,
      )
      .option(
        "--since <time>",
        "only operations created at or after TIME (ISO-8601, or 90s, 15m, 2h, 7d ago)",
        (v) => sinceTime(v),
      )
      .option("--limit <n>", "at most N operations", positiveLimit, DEFAULT_OPERATION_LIMIT)
      .option("--wide", "print whole ids, times and participants (the table is then wider than 120 columns)")
      .option(
        "--json",
        'print {"operations": [...]} as JSON (with --participant, also its "execution_services": [...], as the status view, [] when it has none)',
      ),
  ).action(async (options: OperationsOptions) => {
    // --after is a page start of budget events; anywhere else it would be ignored without a word.
    if (options.after !== undefined && options.budgetEvents !== true) {
      printError(
        CliErrorCode.usage,
        "option '--after <sequence>' pages budget events: give it with option '--budget-events'",
      );
      process.exitCode = ExitCode.usage;
      return;
    }
    if (options.budgets) return printBudgets(options);
    if (options.budgetEvents) return printBudgetEvents(options);
    const { ownedOperationPages, ownerPhrase, shortOperationId } = await import("../../operations/index.js");
    // JSON streams a page at a time, each page written before the next is read (docs/hardening.md).
    if (options.json && options.needsOperator !== true)
      return withStore(
        options.store,
        async (store) => {
          const services = await participantServices(store, options);
          return writeJsonObject(process.stdout, {
            operations: {
              pages: ownedOperationPages(store, operationQuery(options)),
              map: operationEntryToWire,
            },
            // With --participant the key is always there, empty when the store has no such service.
            ...(options.participant === undefined ? {} : { execution_services: { value: services } }),
          });
        },
        { create: false },
      );
    const { rows, shortIds, lapsed, services } = await withStore(
      options.store,
      async (store) => {
        const rows = await listRows(store, options);
        const shortIds = new Map<string, string>();
        if (options.json !== true && options.wide !== true)
          for (const { entry } of rows) shortIds.set(entry.id, await shortOperationId(store, entry.id));
        // A held call whose approve would run nothing (timed out, its runtime gone) is offered a deny only.
        const lapsed = new Map<string, string>();
        if (options.json !== true) {
          const { approvalsLapsed } = await import("../../operations/index.js");
          const held = rows.filter((r) => r.need === "pending_approval").map((r) => r.entry);
          for (const [id, why] of await approvalsLapsed(store, held)) lapsed.set(id, why.message);
        }
        return { rows, shortIds, lapsed, services: await participantServices(store, options) };
      },
      { create: false },
    );
    if (options.json)
      return printJson({
        operations: rows.map((r) => ({
          ...operationEntryToWire(r.entry),
          ...(r.need === undefined ? {} : { needs: r.need }),
        })),
        ...(options.participant === undefined ? {} : { execution_services: services }),
      });
    for (const service of services)
      process.stdout.write(`${serviceLine(options.participant ?? "", service)}\n`);
    if (rows.length === 0)
      printNothingMatched(
        options.needsOperator ? "operations that wait for an operator" : "operations",
        options.store,
      );
    else {
      for (const line of tableOf(rows, shortIds, ownerPhrase, options.wide === true))
        process.stdout.write(`${line}\n`);
      for (const line of decisionLines(rows, shortIds, options.store, lapsed))
        process.stdout.write(`${line}\n`);
    }
    const doubted = rows.filter((r) => r.entry.onRecovery !== undefined);
    const gone = doubted.length;
    // Only a call that may have run becomes indeterminate and needs a person; the rest recovery settles.
    const toResolve = doubted.filter((r) => r.entry.onRecovery === "indeterminate").length;
    if (gone > 0)
      process.stderr.write(
        `raes: ${gone === 1 ? "1 operation is" : `${gone} operations are`} in doubt: the runtime that ran ${gone === 1 ? "it" : "them"} is gone; ` +
          "starting the runtime again on this store recovers them (nothing is retried): `raes run` with the same scenario, or the host-mode `raes mcp-gateway` at its next session" +
          (toResolve === 0
            ? "\n"
            : `; then ${needsOperatorCommand(options.store)} lists the ${toResolve === 1 ? "tool action" : `${toResolve} tool actions`} it marks indeterminate, each with its resolve commands\n`),
      );
  });
  // `raes operations show ID` is `raes operation ID`; its options follow `show`, so they are its own.
  operations.enablePositionalOptions();
  describeOperationCommand(
    operations.command("show <id>").description("show one operation (as raes operation)"),
  );
}
