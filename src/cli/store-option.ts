import type { Command } from "commander";
import { type ControlPlaneStore, DEFAULT_STORE_URL, openControlPlaneStore } from "../store/index.js";

/** Adds `--store URL` to a command. */
export function storeOption(command: Command): Command {
  return command.option(
    "--store <url>",
    "control-plane store URL (memory:, sqlite:PATH, postgres://…)",
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
  const store = await openControlPlaneStore(url, options.create === false ? { create: false } : {});
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
