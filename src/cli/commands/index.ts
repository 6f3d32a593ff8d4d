import type { Command } from "commander";
import { registerManifestCommand } from "./manifest.js";

/** Adds one `raes` subcommand to the program. */
export type RegisterCommand = (program: Command) => void;

/** Every `raes` subcommand, in help order. */
export const commands: readonly RegisterCommand[] = [registerManifestCommand];
