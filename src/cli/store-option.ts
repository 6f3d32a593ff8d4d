import { dirname } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import {
  DEFAULT_STORE_URL,
  readStoreUrl,
  STORE_URL_FORMS,
  sqliteStorePath,
  sqliteStoreUrl,
} from "../records/index.js";
import type { ControlPlaneStore } from "../store/index.js";
import { makeDirectories } from "./directories.js";
import { inputFile } from "./input-files.js";

/** The store's default URL; the CLI reads it where the store does, so `--help` loads no store module. */
export { DEFAULT_STORE_URL };

/**
 * Parses a `--store` value as the store reads it: a URL naming no known store, or a SQLite path that
 * is not a file, is a usage error.
 */
export function storeUrl(value: string): string {
  const read = readStoreUrl(value);
  if (!read.ok) throw new InvalidArgumentError(read.problem);
  if (read.location.kind !== "sqlite") return value;
  return sqliteStoreUrl(inputFile(read.location.path));
}

/** Makes a SQLite store's folder (failing fast where none can be made); other stores need none. */
export function makeStoreFolder(url: string): void {
  const path = sqliteStorePath(url);
  if (path !== undefined) makeDirectories(dirname(path));
}

/** The environment variable `--store` falls back to, before the default store. */
export const STORE_ENV = "RAES_STORE";

/** Adds `--store URL` to a command: else `RAES_STORE`, else `sqlite:.raes/control-plane.db`, each checked alike. */
export function storeOption(command: Command): Command {
  return command.addOption(
    new Option(
      "--store <url>",
      `control-plane store URL (${STORE_URL_FORMS}); unset, the environment variable ${STORE_ENV}, then the default`,
    )
      .env(STORE_ENV)
      .argParser(storeUrl)
      .default(DEFAULT_STORE_URL),
  );
}

/**
 * Opens the store, runs the work, and always closes it. Commands that only read or amend a control plane
 * pass `create: false`, so a mistyped `--store` is "no store at …" (exit 2), never a new empty database.
 * `readOnly` opens a SQLite file without write access, or a PostgreSQL schema in a read-only session, so an
 * older schema is read as it is, never migrated.
 */
export async function withStore<T>(
  url: string,
  work: (store: ControlPlaneStore) => Promise<T>,
  options: { readonly create?: boolean; readonly readOnly?: boolean } = {},
): Promise<T> {
  const { openControlPlaneStore } = await import("../store/index.js");
  if (options.create !== false) makeStoreFolder(url);
  const store = await openControlPlaneStore(url, {
    ...(options.create === false ? { create: false } : {}),
    ...(options.readOnly === true ? { readOnly: true } : {}),
  });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
