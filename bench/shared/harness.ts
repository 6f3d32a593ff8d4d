import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type {
  InvocationToolActionPort,
  ParticipantActionRequest,
  ParticipantActionResult,
  ParticipantRuntime,
} from "../../src/index.js";
import { exampleManifest, ROOT } from "../../test/helpers/example.js";
import { oneToolCall, succeededResult } from "../../test/helpers/tool-requests.js";

/** The PostgreSQL server the project's tests and benches use. */
export const PG_URL = process.env.RAES_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * The built `raes` (dist/cli/main.js), as `npx raes` runs it. Refused when it is missing or older
 * than a file of src/: a bench of an old build would report figures of code that is not there.
 */
export function builtCli(): string {
  const cli = join(ROOT, "dist", "cli", "main.js");
  if (!existsSync(cli)) throw new Error(`no build at ${cli}: run npm run build first`);
  const built = statSync(cli).mtimeMs;
  const newer = (readdirSync(join(ROOT, "src"), { recursive: true }) as string[]).find(
    (file) => file.endsWith(".ts") && statSync(join(ROOT, "src", file)).mtimeMs > built,
  );
  if (newer !== undefined) throw new Error(`src/${newer} is newer than the build: run npm run build first`);
  return cli;
}

/** A valid outer result for the request, built without hashing so the harness costs nothing. */
export function noopResult(request: ParticipantActionRequest): ParticipantActionResult {
  return succeededResult(request, "bench-noop");
}

/** A runtime with no tool actions: `admitAction` answers at once. */
export function noopRuntime(): ParticipantRuntime {
  return { admitAction: noopResult };
}

/**
 * A runtime that runs `calls` admit→dispatch→complete cycles on each invocation's port and adds
 * the time they took (from the first admit to the last acknowledgement) to `portNs`.
 */
export class ToolCallRuntime implements ParticipantRuntime {
  portNs = 0n;
  cycles = 0;
  readonly #calls: number;
  #port: InvocationToolActionPort | undefined;

  constructor(calls: number) {
    this.#calls = calls;
  }

  attachInvocationToolActions(port: InvocationToolActionPort): void {
    this.#port = port;
  }

  async admitAction(request: ParticipantActionRequest): Promise<ParticipantActionResult> {
    const port = this.#port;
    this.#port = undefined;
    if (port?.invocationActionInstanceId !== request.actionInstanceId) throw new Error("no port attached");
    const start = process.hrtime.bigint();
    for (let i = 0; i < this.#calls; i += 1) await oneToolCall(port, `call-${i}`);
    this.portNs += process.hrtime.bigint() - start;
    this.cycles += this.#calls;
    return noopResult(request);
  }
}

/** The example manifest without the composition claim: no port is ever attached. */
export function manifestWithoutClaim(): Record<string, unknown> {
  const manifest = exampleManifest();
  delete manifest.participant_runtime.invocation_tool_actions;
  return manifest;
}

/** The example manifest with the per-invocation tool-action limit raised to `total`. */
export function manifestWithToolLimit(total: number): Record<string, unknown> {
  const manifest = exampleManifest();
  manifest.participant_runtime.invocation_tool_actions.max_tool_actions_per_invocation = total;
  return manifest;
}

/** A scratch directory removed by `dispose`. */
export function scratchDir(prefix: string): { dir: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** True when the bench PostgreSQL server answers. */
export async function pgAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh schema name and the store URL for it; `drop` removes it and everything in it. */
export function pgSchema(label: string): { schema: string; url: string; drop(): Promise<void> } {
  const schema = `bench_${label}_${process.pid}_${Date.now().toString(36)}`;
  const url = `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}schema=${schema}`;
  return {
    schema,
    url,
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** True when `--quick` was given or RAES_BENCH_QUICK is set. */
export function quickMode(argv: readonly string[]): boolean {
  return argv.includes("--quick") || (process.env.RAES_BENCH_QUICK ?? "") !== "";
}
