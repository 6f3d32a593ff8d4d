import type { Command } from "commander";

/** Adds one `raes` subcommand to the program. */
export type RegisterCommand = (program: Command) => void;

/**
 * Every `raes` subcommand by name, in help order. Each loads only when asked for, so a short-lived
 * process such as `raes mcp-gateway` does not pay for the runtime, the SDL loader or the stores.
 */
export const commandLoaders: Readonly<Record<string, () => Promise<RegisterCommand>>> = {
  validate: async () => (await import("./validate.js")).registerValidateCommand,
  compile: async () => (await import("./compile.js")).registerCompileCommand,
  manifest: async () => (await import("./manifest.js")).registerManifestCommand,
  run: async () => (await import("./run.js")).registerRunCommand,
  history: async () => (await import("./history.js")).registerHistoryCommand,
  operation: async () => (await import("./operation.js")).registerOperationCommand,
  operations: async () => (await import("./operations.js")).registerOperationsCommand,
  resolve: async () => (await import("./resolve.js")).registerResolveCommand,
  resume: async () => (await import("./resume.js")).registerResumeCommand,
  "mcp-gateway": async () => (await import("./mcp-gateway.js")).registerMcpGatewayCommand,
  demo: async () => (await import("./demo.js")).registerDemoCommand,
};
