import type { Command } from "commander";
import { registerCompileCommand } from "./compile.js";
import { registerDemoCommand } from "./demo.js";
import { registerHistoryCommand } from "./history.js";
import { registerManifestCommand } from "./manifest.js";
import { registerMcpGatewayCommand } from "./mcp-gateway.js";
import { registerOperationCommand } from "./operation.js";
import { registerResolveCommand } from "./resolve.js";
import { registerResumeCommand } from "./resume.js";
import { registerRunCommand } from "./run.js";
import { registerValidateCommand } from "./validate.js";

/** Adds one `raes` subcommand to the program. */
export type RegisterCommand = (program: Command) => void;

/** Every `raes` subcommand, in help order. */
export const commands: readonly RegisterCommand[] = [
  registerValidateCommand,
  registerCompileCommand,
  registerManifestCommand,
  registerRunCommand,
  registerHistoryCommand,
  registerOperationCommand,
  registerResolveCommand,
  registerResumeCommand,
  registerMcpGatewayCommand,
  registerDemoCommand,
];
