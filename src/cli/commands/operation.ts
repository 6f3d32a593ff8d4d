import type { Command } from "commander";
import type { Operation } from "../../operations/index.js";
import { ExitCode, printJson } from "../exit.js";
import { storeOption, withStore } from "../store-option.js";

/** The wire form of an operation: snake_case, every field present. */
export function operationToWire(operation: Operation): Record<string, unknown> {
  return {
    id: operation.id,
    parent_id: operation.parentId,
    kind: operation.kind,
    state: operation.state,
    settlement: operation.settlement ?? null,
    resolution: operation.resolution
      ? {
          resolution: operation.resolution.resolution,
          note: operation.resolution.note,
          resolved_at: operation.resolution.resolvedAt,
        }
      : null,
    updated_at: operation.updatedAt,
  };
}

/** `raes operation ID`: one scheduler or tool-action operation. */
export function registerOperationCommand(program: Command): void {
  storeOption(
    program
      .command("operation <id>")
      .description("show one operation (an outer invocation or a tool action)")
      .option("--json", "print the operation as JSON"),
  ).action(async (id: string, options: { store: string; json?: boolean }) => {
    const operation = await withStore(options.store, (store) => store.getOperation(id), { create: false });
    if (!operation) {
      if (options.json) printJson({ error: "operation.not-found", id });
      else process.stderr.write(`raes: no operation ${id} in ${options.store}\n`);
      process.exitCode = ExitCode.findings;
      return;
    }
    if (options.json) return printJson(operationToWire(operation));
    const wire = operationToWire(operation);
    for (const [key, value] of Object.entries(wire)) {
      if (value !== null)
        process.stdout.write(
          `${key.padEnd(11)} ${typeof value === "object" ? JSON.stringify(value) : String(value)}\n`,
        );
    }
  });
}
