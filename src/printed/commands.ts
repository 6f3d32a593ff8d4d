import { resolve } from "node:path";
import { isPostgresStoreUrl, sqliteStorePath, sqliteStoreUrl } from "../records/index.js";
import { raesInvocation } from "./invocation.js";

/** Quotes a word for a POSIX shell only when it needs it, so copied commands run as shown. */
export function shellWord(value: string): string {
  if (/^[\w.:=/@+,%-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The store URL as a printed command names it: a PostgreSQL password dropped, because printed
 * commands land in logs, terminals and shared pages (the command then takes PGPASSWORD or ~/.pgpass).
 */
export function printableStoreUrl(url: string): string {
  if (!isPostgresStoreUrl(url)) return url;
  const parsed = new URL(url);
  if (parsed.password === "") return url;
  parsed.password = "";
  return parsed.toString();
}

/** The store URL a page prints: a SQLite path made absolute, so its commands run from any directory; no password. */
export function absoluteStoreUrl(url: string): string {
  const path = sqliteStorePath(url);
  if (path !== undefined) return sqliteStoreUrl(resolve(path));
  return printableStoreUrl(url);
}

/**
 * A `raes` command for a person to paste, runnable as printed: it starts the way this CLI is invoked
 * (`raes`, `npx raes` or `node /abs/dist/cli/main.js`, see `raesInvocation`) and every argument is
 * quoted for POSIX shells. It never carries a `VAR=<placeholder>` prefix.
 *
 * @example
 * printedCommand(["resume", "participant.behavior.a", "--store", "sqlite:.raes/x.db"]);
 * // "npx raes resume participant.behavior.a --store sqlite:.raes/x.db" inside a project that has raes-ts
 */
export function printedCommand(args: readonly string[], invocation = raesInvocation()): string {
  return [...invocation, ...args].map(shellWord).join(" ");
}

/** The `raes resolve` commands an operator can run for an indeterminate action: one per decision, each runnable as printed. */
export function resolveCommands(id: string, storeUrl: string): { confirmed: string; absent: string } {
  const store = printableStoreUrl(storeUrl);
  const command = (effect: string) => printedCommand(["resolve", id, "--effect", effect, "--store", store]);
  return { confirmed: command("confirmed"), absent: command("absent") };
}

/** The `raes approve` and `raes deny` commands for a call held for approval, each runnable as printed. */
export function approvalCommands(id: string, storeUrl: string): { approve: string; deny: string } {
  const store = printableStoreUrl(storeUrl);
  return {
    approve: printedCommand(["approve", id, "--store", store]),
    deny: printedCommand(["deny", id, "--store", store]),
  };
}

/** The `raes verify --store` command that names what fails in a store's evidence, runnable as printed. */
export function verifyCommand(storeUrl: string): string {
  return printedCommand(["verify", "--store", printableStoreUrl(storeUrl)]);
}

/** The `raes operations --needs-operator` command that lists what waits for a person, with its decision commands; runnable as printed. */
export function needsOperatorCommand(storeUrl: string): string {
  return printedCommand(["operations", "--needs-operator", "--store", printableStoreUrl(storeUrl)]);
}

/** The `raes resume` command that restarts a participant's stopped scheduler, runnable as printed. */
export function resumeCommand(participant: string, storeUrl: string): string {
  return printedCommand(["resume", participant, "--store", printableStoreUrl(storeUrl)]);
}

/**
 * The `raes operations --budget-events` command that lists a store's budget events a page at a time from
 * after `afterSequence` (from the first when absent), of one participant when given; runnable as printed.
 */
export function budgetEventsCommand(
  storeUrl: string,
  options: { readonly participant?: string; readonly afterSequence?: number; readonly limit?: number } = {},
): string {
  return printedCommand([
    "operations",
    "--budget-events",
    ...(options.participant === undefined ? [] : ["--participant", options.participant]),
    ...(options.afterSequence === undefined ? [] : ["--after", String(options.afterSequence)]),
    ...(options.limit === undefined ? [] : ["--limit", String(options.limit)]),
    "--store",
    printableStoreUrl(storeUrl),
  ]);
}
