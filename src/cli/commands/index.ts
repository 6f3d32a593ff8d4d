import type { Command } from "commander";
import { registerHistoryCommand } from "./history.js";
import { registerManifestCommand } from "./manifest.js";
import { registerOperationCommand } from "./operation.js";
import { registerResolveCommand } from "./resolve.js";
import { registerRunCommand } from "./run.js";

/** Adds one `raes` subcommand to the program. */
export type RegisterCommand = (program: Command) => void;

/** Every `raes` subcommand, in help order. */
export const commands: readonly RegisterCommand[] = [
  registerManifestCommand,
  registerRunCommand,
  registerHistoryCommand,
  registerOperationCommand,
  registerResolveCommand,
];
