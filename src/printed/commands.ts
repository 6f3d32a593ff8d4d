import { resolve } from "node:path";
import { isPostgresStoreUrl, sqliteStorePath, sqliteStoreUrl } from "../records/index.js";

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

/** The `raes resolve` commands an operator can run for an indeterminate action: one per decision, each runnable as printed. */
export function resolveCommands(id: string, storeUrl: string): { confirmed: string; absent: string } {
  const store = printableStoreUrl(storeUrl);
  const command = (effect: string) =>
    ["raes", "resolve", id, "--effect", effect, "--store", store].map(shellWord).join(" ");
  return { confirmed: command("confirmed"), absent: command("absent") };
}

/** The `raes resume` command that restarts a participant's stopped scheduler, runnable as printed. */
export function resumeCommand(participant: string, storeUrl: string): string {
  return ["raes", "resume", participant, "--store", printableStoreUrl(storeUrl)].map(shellWord).join(" ");
}
