import type { Command } from "commander";

/** Adds one `raes` subcommand to the program. */
export type RegisterCommand = (program: Command) => void;

/**
 * Every `raes` subcommand by name, in help order. Each loads only when asked for, so a short-lived
 * process such as `raes mcp-gateway` does not pay for the runtime, the SDL loader or the stores.
 * A command's description is its summary's: it is written once, here, where `raes --help` reads it.
 */
export const commandLoaders: Readonly<Record<string, () => Promise<RegisterCommand>>> = {
  validate: described("validate", async () => (await import("./validate.js")).registerValidateCommand),
  compile: described("compile", async () => (await import("./compile.js")).registerCompileCommand),
  manifest: described("manifest", async () => (await import("./manifest.js")).registerManifestCommand),
  run: described("run", async () => (await import("./run.js")).registerRunCommand),
  history: described("history", async () => (await import("./history.js")).registerHistoryCommand),
  operation: described("operation", async () => (await import("./operation.js")).registerOperationCommand),
  operations: described(
    "operations",
    async () => (await import("./operations.js")).registerOperationsCommand,
  ),
  resolve: described("resolve", async () => (await import("./resolve.js")).registerResolveCommand),
  resume: described("resume", async () => (await import("./resume.js")).registerResumeCommand),
  control: described("control", async () => (await import("./control/index.js")).registerControlCommand),
  approve: described("approve", async () => (await import("./approval/index.js")).registerApproveCommand),
  deny: described("deny", async () => (await import("./approval/index.js")).registerDenyCommand),
  verify: described("verify", async () => (await import("./evidence/index.js")).registerVerifyCommand),
  export: described("export", async () => (await import("./evidence/index.js")).registerExportCommand),
  serve: described("serve", async () => (await import("./serve/index.js")).registerServeCommand),
  "mcp-gateway": described(
    "mcp-gateway",
    async () => (await import("./mcp-gateway.js")).registerMcpGatewayCommand,
  ),
  config: described("config", async () => (await import("./config.js")).registerConfigCommand),
  demo: described("demo", async () => (await import("./demo.js")).registerDemoCommand),
};

/** Loads a command and registers it with its summary's description. */
function described(name: string, load: () => Promise<RegisterCommand>): () => Promise<RegisterCommand> {
  return async () => {
    const register = await load();
    return (program) => {
      register(program);
      const description = commandSummaries[name]?.[1];
      const command = program.commands.find((c) => c.name() === name);
      if (description !== undefined) command?.description(description);
    };
  };
}

/**
 * What `raes --help` lists for each command: [term, description]. The term is the one commander
 * derives from the command's arguments (a test holds them equal); both are spelled here so that
 * `raes --help`, `raes --version` and a mistyped command load no command.
 */
export const commandSummaries: Readonly<Record<string, readonly [term: string, description: string]>> = {
  validate: [
    "validate [options] <file>",
    "load a RAES scenario and report every syntax, shape and semantic finding",
  ],
  compile: [
    "compile [options] <file>",
    "compile a RAES scenario into the address-keyed runtime model (wire JSON)",
  ],
  manifest: ["manifest", "work with backend manifests"],
  run: [
    "run [options] <scenario>",
    "run a scenario's autonomous participants against a participant runtime module or an agent command",
  ],
  history: ["history [options]", "print behavior history events in commit order"],
  operation: [
    "operation [options] <id>",
    "show one operation (an outer invocation or a tool action); ID may be any unique prefix or suffix of its id",
  ],
  operations: [
    "operations [options]",
    "list operations (outer invocations and tool actions), newest first; `operations show ID` shows one",
  ],
  resolve: [
    "resolve [options] <id>",
    "resolve an indeterminate tool action (ID: its id, or any unique prefix or suffix); the effect is never repeated (the same decision again is a no-op)",
  ],
  resume: [
    "resume [options] <participant>",
    "restart a participant's stopped scheduler (refused while indeterminate actions are unresolved)",
  ],
  control: [
    "control [options] <action> <participant>",
    "start, pause, resume, drain, reset or teardown one participant's execution service (a running raes run honours it at its next advance)",
  ],
  approve: [
    "approve [options] <id>",
    "approve a tool call held for approval (ID: its id, or any unique prefix or suffix): its runtime dispatches it and the tool runs once (approving again is a no-op)",
  ],
  deny: [
    "deny [options] <id>",
    "deny a tool call held for approval: it is withheld (approval_denied) and the tool never runs (denying again is a no-op)",
  ],
  verify: [
    "verify [options] [bundle]",
    "recompute every history chain of the store, or check an evidence bundle offline; exit 1 names the first event that does not verify",
  ],
  export: [
    "export [options]",
    "write the store's evidence bundle: history, operations, chain heads, seed fingerprints, optionally signed",
  ],
  serve: [
    "serve [options]",
    "the live operator console over the store: what needs an operator first, participants, operations and timelines, with buttons for decisions",
  ],
  "mcp-gateway": [
    "mcp-gateway [options] <upstream...>",
    "MCP server (stdio, or Streamable HTTP with --http) that admits each tool call through the invocation's port before forwarding it upstream",
  ],
  config: ["config", "print configurations for other programs (mcp-host: an MCP host's server block)"],
  demo: [
    "demo [options]",
    "run the example scenario with a scripted MCP agent behind raes mcp-gateway; needs nothing else",
  ],
};
