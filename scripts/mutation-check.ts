/**
 * `npm run mutation`: applies deliberate breakages to src/, one at a time, in a temporary copy of the
 * repository, runs the tests that should catch each, and fails if any breakage survives (its tests
 * pass) or no longer applies (its text is gone from src/: update the list). Prints one line per mutant.
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** One deliberate breakage: replace `find` (exactly one occurrence in src/) with `replace`. */
interface Mutant {
  readonly name: string;
  readonly find: string;
  readonly replace: string;
  /** Test files (repository-relative) that must fail with the breakage in place. */
  readonly tests: readonly string[];
}

const CONFORMANCE = ["test/port/conformance.test.ts"];

const MUTANTS: readonly Mutant[] = [
  {
    name: "complete before dispatch answers outcome_invalid instead of state_conflict",
    find: "if (!probe.ok) return refusedAck(probe.refusal);",
    replace: "if (!probe.ok) return refusedAck(Refusal.outcome_invalid);",
    tests: CONFORMANCE,
  },
  {
    name: "the outcome's observation point is not checked",
    find: "outcome.observationPoint !== identity.observationPoint",
    replace: "false",
    tests: CONFORMANCE,
  },
  {
    name: "the concurrency limit lets one more unsettled action in",
    find: "if (this.#unsettled >= limits.maxConcurrentToolActionsPerInvocation) {",
    replace: "if (this.#unsettled > limits.maxConcurrentToolActionsPerInvocation) {",
    tests: CONFORMANCE,
  },
  {
    name: "a dispatched action left open at close settles withheld instead of indeterminate",
    find: 'if (event.type === "report_unknown" || event.type === "close")',
    replace: 'if (event.type === "report_unknown")',
    tests: CONFORMANCE,
  },
  {
    name: "the admission claim is never written durably",
    find: "await this.#options.ledger.insert(record);",
    replace: "void record;",
    tests: ["test/port/vector-harness.test.ts", "test/port/conformance.test.ts"],
  },
  {
    name: "tool-action triples are committed in reverse admission order",
    find: "...toolActions.flatMap((a) => toolActionTriple(a, closed, closedAt)),",
    replace: "...[...toolActions].reverse().flatMap((a) => toolActionTriple(a, closed, closedAt)),",
    tests: CONFORMANCE,
  },
  {
    name: "each triple's events are reordered",
    find: "    event(HistoryEventType.action_attempted, base.attemptPhase),\n    event(HistoryEventType.state_transition_recorded, LifecyclePhase.state_update_commit),",
    replace:
      "    event(HistoryEventType.state_transition_recorded, LifecyclePhase.state_update_commit),\n    event(HistoryEventType.action_attempted, base.attemptPhase),",
    tests: ["test/runtime/manager/manager.test.ts"],
  },
  {
    name: "the memory store ignores lease fences",
    find: "    if (!fence) return;\n    const lease = this.#leases.get(fence.participantAddress);",
    replace:
      "    if (fence || !fence) return;\n    const lease = this.#leases.get(fence.participantAddress);",
    tests: ["test/store/memory.test.ts"],
  },
  {
    name: "an outer result without a post-state digest is accepted",
    find: "if (!isNonEmptyString(r.postStateDigest))",
    replace: "if (false)",
    tests: ["test/runtime/invocation/outcomes.test.ts"],
  },
  {
    name: "raes run drops a harness's error",
    find: "if (s.error === undefined) return;",
    replace: "return;",
    tests: ["test/cli/run.test.ts"],
  },
  {
    name: "a step reports only the first failed participant",
    find: "if (failures.length > 1) throw new ParticipantsFailedError(failures);",
    replace: "",
    tests: ["test/runtime/manager/step-failures.test.ts"],
  },
  {
    name: "a failed ledger write's cause is not logged",
    find: "onLedgerFailure: (failure) => ctx.log(ledgerFailureLine(failure)),",
    replace: "onLedgerFailure: () => undefined,",
    tests: ["test/port/ledger-failure.test.ts"],
  },
  {
    name: "a SQLite driver bug (a value it cannot bind) is reported as an unavailable store",
    find: 'if (!(failure instanceof Database.SqliteError)) return "bug";',
    replace: 'if (!(failure instanceof Database.SqliteError)) return "unavailable";',
    tests: ["test/store/errors.test.ts"],
  },
  {
    name: "a paused clock still advances when the change resumes it after a reset",
    find: "tick: base.tick + (paused ? 0 : (change.advanceTicks ?? 0)),",
    replace: "tick: base.tick + (paused && !reset ? 0 : (change.advanceTicks ?? 0)),",
    tests: ["test/store/memory.test.ts"],
  },
  {
    name: "the memory store numbers lease tokens with one counter for every participant",
    find: ": (this.#lastTokens.get(participantAddress) ?? 0) + 1;",
    replace: ": Math.max(0, ...this.#lastTokens.values()) + 1;",
    tests: ["test/store/memory.test.ts"],
  },
  {
    name: "the memory store's commitInvocations applies each commit before checking the next",
    find: "for (const commit of commits) this.#checkCommit(commit, batch);\n    for (const commit of commits) this.#applyCommit(commit);",
    replace:
      "for (const commit of commits) {\n      this.#checkCommit(commit, batch);\n      this.#applyCommit(commit);\n    }",
    tests: ["test/store/memory.test.ts"],
  },
  {
    name: "the SQL stores hand a lease to a new owner under the old token",
    find: "ELSE leases.token + 1 END",
    replace: "ELSE leases.token END",
    tests: ["test/store/sqlite.test.ts"],
  },
  {
    name: "the gateway keeps the tool arguments in the stored tool call id",
    find: "const toolCallId = toolCallIdFor(this.#sessionId, call.requestId);",
    replace:
      "const toolCallId = toolCallIdFor(this.#sessionId, call.requestId) + JSON.stringify(call.arguments);",
    tests: ["test/runtime/canary.test.ts"],
  },
  {
    name: "the gateway logs a refused call's arguments",
    find: "this.#log(`refused ",
    replace: "this.#log(JSON.stringify(call.arguments) + `refused ",
    tests: ["test/runtime/canary.test.ts"],
  },
];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const COPIED = ["src", "test", "examples", "package.json", "tsconfig.json"];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The one src/ file holding `find` exactly once; found by content so the list survives file moves. */
function locate(copy: string, mutant: Mutant): string {
  const hits = filesUnder(join(copy, "src")).flatMap((file) => {
    const count = readFileSync(file, "utf8").split(mutant.find).length - 1;
    return count > 0 ? [{ file, count }] : [];
  });
  const [hit] = hits;
  if (hits.length !== 1 || !hit || hit.count !== 1)
    throw new Error(
      `'${mutant.name}': its text occurs ${hits.length === 0 ? "nowhere" : "more than once"} in src/`,
    );
  return hit.file;
}

function runTests(copy: string, tests: readonly string[]): boolean {
  const run = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", ...tests], {
    cwd: copy,
    encoding: "utf8",
    env: { ...process.env, CI: "", RAES_REQUIRE_POSTGRES: "" },
    timeout: 600_000,
  });
  return run.status === 0;
}

function main(): number {
  const copy = mkdtempSync(join(tmpdir(), "raes-mutation-"));
  try {
    for (const entry of COPIED) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
    let bad = 0;
    for (const mutant of MUTANTS) {
      let file: string;
      try {
        file = locate(copy, mutant);
      } catch (error) {
        bad += 1;
        console.log(`STALE     ${(error as Error).message}`);
        continue;
      }
      const original = readFileSync(file, "utf8");
      writeFileSync(file, original.replace(mutant.find, mutant.replace));
      const started = Date.now();
      const survived = runTests(copy, mutant.tests);
      writeFileSync(file, original);
      const where = relative(copy, file);
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      if (survived) bad += 1;
      console.log(`${survived ? "SURVIVED" : "killed  "}  ${mutant.name} (${where}; ${seconds} s)`);
    }
    console.log(`\n${MUTANTS.length - bad} of ${MUTANTS.length} breakages caught`);
    return bad === 0 ? 0 : 1;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

process.exitCode = main();
