/**
 * Crash-test child for SQLite group commit: runs `participants` I/O-bound participants (one tool call
 * each per invocation) concurrently on the SQLite store at argv's path, printing `ACK <write> <id>`
 * as each store write is acknowledged and `STEP <writes> <commits>` after every step, until the
 * parent kills it with SIGKILL.
 *
 * argv: DB_FILE PARTICIPANTS
 */
import { RuntimeManager } from "../../src/index.js";
import type { ControlPlaneStore, InvocationCommit, ToolActionRecord } from "../../src/store/index.js";
import { SqliteControlPlaneStore } from "../../src/store/sqlite/index.js";
import { exampleManifest, modelWithParticipants } from "./example.js";
import { SleepingToolRuntime } from "./sleeping-tool-runtime.js";

const [file = "", participantsText = "16"] = process.argv.slice(2);
const participants = Number(participantsText);
const say = (line: string) => process.stdout.write(`${line}\n`);
let writes = 0;

/** What an acknowledged write is, named by its record, or undefined for writes the check ignores. */
function acked(method: string, args: readonly unknown[]): string | undefined {
  const [first] = args;
  if (method === "openInvocation") return `open ${(first as { id: string }).id}`;
  if (method === "insertToolAction") return `claim ${(first as ToolActionRecord).id}`;
  if (method === "updateToolAction") {
    const action = first as ToolActionRecord;
    return `${action.phase} ${action.id}`;
  }
  if (method === "commitInvocation") return `close ${(first as InvocationCommit).invocation.id}`;
  return undefined;
}

/** The store, announcing each write once its promise resolved (stdout to a pipe is synchronous). */
function announcing(inner: ControlPlaneStore): ControlPlaneStore {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        const what = acked(String(property), args);
        if (what !== undefined) {
          writes += 1;
          say(`ACK ${what}`);
        }
        return result;
      };
    },
  });
}

try {
  const sqlite = SqliteControlPlaneStore.open(`sqlite:${file}`, file);
  const manifest = exampleManifest();
  manifest.participant_runtime.max_autonomous_participants = participants;
  manifest.participant_runtime.max_autonomous_in_flight = participants;
  const manager = await RuntimeManager.open({
    model: modelWithParticipants(participants, 1_000),
    manifest,
    runtime: new SleepingToolRuntime(2),
    store: announcing(sqlite),
    ownerId: "group-commit-crash",
  });
  for (;;) {
    await manager.step(1, { concurrency: participants });
    say(`STEP ${writes} ${sqlite.commits}`);
  }
} catch (error) {
  say(`FAILED ${error instanceof Error ? error.stack : String(error)}`.replaceAll("\n", " | "));
  process.exit(2);
}
