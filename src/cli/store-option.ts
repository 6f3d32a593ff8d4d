import { dirname } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import type { ControlPlaneStore } from "../store/index.js";
import { makeDirectories } from "./directories.js";
import { inputFile } from "./input-files.js";

/**
 * The store's `DEFAULT_STORE_URL`, spelled here (a test holds them equal) so that a command's
 * `--help` loads no store module: the store is imported when a command opens it.
 */
export const DEFAULT_STORE_URL = "sqlite:.raes/control-plane.db";

/** Parses a `--store` value: a URL naming no known store, or a SQLite path that is not a file, is a usage error. */
export function storeUrl(value: string): string {
  if (value === "memory:" || /^postgres(ql)?:\/\//.test(value)) return value;
  if (!value.startsWith("sqlite:"))
    throw new InvalidArgumentError("use memory:, sqlite:PATH, postgres://… or postgresql://…");
  const path = value.slice("sqlite:".length);
  if (path === "") throw new InvalidArgumentError(`sqlite: needs a file path (e.g. ${DEFAULT_STORE_URL})`);
  return `sqlite:${inputFile(path)}`;
}

/** Makes a SQLite store's folder (failing fast where none can be made); other stores need none. */
export function makeStoreFolder(url: string): void {
  if (url.startsWith("sqlite:")) makeDirectories(dirname(url.slice("sqlite:".length)));
}

/** Adds `--store URL` to a command. */
export function storeOption(command: Command): Command {
  return command.option(
    "--store <url>",
    "control-plane store URL (memory:, sqlite:PATH, postgres://…)",
    storeUrl,
    DEFAULT_STORE_URL,
  );
}

/**
 * Opens the store, runs the work, and always closes it. Commands that only read or amend a control plane
 * pass `create: false`, so a mistyped `--store` is "no store at …" (exit 2), never a new empty database.
 */
export async function withStore<T>(
  url: string,
  work: (store: ControlPlaneStore) => Promise<T>,
  options: { readonly create?: boolean } = {},
): Promise<T> {
  const { openControlPlaneStore } = await import("../store/index.js");
  if (options.create !== false) makeStoreFolder(url);
  const store = await openControlPlaneStore(url, options.create === false ? { create: false } : {});
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
