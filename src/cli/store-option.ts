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

/** Opens the store, runs the work, and always closes it. */
export async function withStore<T>(url: string, work: (store: ControlPlaneStore) => Promise<T>): Promise<T> {
  const store = await openControlPlaneStore(url);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
