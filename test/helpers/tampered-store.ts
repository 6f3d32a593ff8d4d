import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { resolveToolAction } from "../../src/operations/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { type CliRun, raes } from "../cli/cli.js";
import { POSTGRES_TEST_URL } from "../store/pg-available.js";
import { closeCommit, invocation, P1, scheduler, toolAction } from "../store/records.js";

/** The tool action `decidedStore` resolves. */
export const RESOLVED_ACTION = "inv-a.tool-1";

/** The settled, succeeded tool action beside it, onto which a tampering copies the resolution. */
const FORGED_ONTO = "inv-a.tool-2";

/**
 * A store with one participant's closed invocation (three chained events), an indeterminate tool action resolved by `bob` and a resume
 * by `alice`: two chained operator decisions, one resolution to compare with its decision.
 */
export async function decidedStore(url: string): Promise<void> {
  const store = await openControlPlaneStore(url);
  try {
    // One closed invocation first: the participant has a chained history for the views to check.
    const first = invocation({ id: "inv-0", ordinal: 0 });
    await store.openInvocation(first, scheduler());
    await store.commitInvocation(closeCommit(first));
    const inv = invocation();
    await store.openInvocation(inv, scheduler({ attempts: 1 }));
    await store.insertToolAction(toolAction(inv, 1, { phase: "settled", settlement: "indeterminate" }));
    // A settled call beside it: no decision is about it, so a resolution forged onto it is named.
    await store.insertToolAction(toolAction(inv, 2, { phase: "settled", settlement: "succeeded" }));
    await store.saveScheduler(
      scheduler({ attempts: 1, lifecycle: "stopped", stopReason: "tool_action_indeterminate" }),
    );
    await resolveToolAction(store, RESOLVED_ACTION, {
      resolution: "effect_absent",
      note: "n",
      operator: "bob",
    });
    await store.recordDecision(
      { kind: "resume", subject: P1, operator: "alice", note: "", decided_at: "2025-01-03T00:00:00.000000Z" },
      [scheduler({ attempts: 1 })],
    );
  } finally {
    await store.close();
  }
}

/** Direct edits outside the history chains, and the words `raes verify --store` names each with. */
export const OUTSIDE_HISTORY_TAMPERS = [
  {
    name: "an operator decision's operator renamed",
    sqlite: "UPDATE operator_decisions SET operator = 'mallory' WHERE sequence = 1",
    postgres: "UPDATE operator_decisions SET operator = 'mallory' WHERE sequence = 1",
    says: "operator chain broken: edited decision: sequence 1: its content differs from what its chain_digest sealed",
  },
  {
    name: "a resolution's effect flipped in its operation record",
    sqlite: "UPDATE tool_actions SET resolution = replace(resolution, 'effect_absent', 'effect_confirmed')",
    postgres:
      "UPDATE tool_actions SET resolution = replace(resolution::text, 'effect_absent', 'effect_confirmed')::json",
    says: `operation record does not match the operator chain: operation ${RESOLVED_ACTION}: its record's resolution differs from decision 1`,
  },
  {
    name: "a resolution copied onto an operation that is not indeterminate",
    sqlite: `UPDATE tool_actions SET resolution = (SELECT resolution FROM tool_actions WHERE id = '${RESOLVED_ACTION}') WHERE id = '${FORGED_ONTO}'`,
    postgres: `UPDATE tool_actions SET resolution = (SELECT resolution FROM tool_actions WHERE id = '${RESOLVED_ACTION}') WHERE id = '${FORGED_ONTO}'`,
    says: `operation record does not match the operator chain: operation ${FORGED_ONTO}: it is succeeded, not indeterminate, yet its record holds a resolution`,
  },
] as const;

/**
 * Runs `check` on a fresh `decidedStore` of `kind` in `dir`, tampered with `tamper` when given, and
 * on what `raes verify --store` answered over it; then drops the store.
 */
export async function afterVerify(
  kind: TamperableStore,
  dir: string,
  tamper: { readonly sqlite: string; readonly postgres: string } | undefined,
  check: (url: string, verified: CliRun) => Promise<void>,
): Promise<void> {
  const url = (await kind.fresh(dir)) as string;
  try {
    await decidedStore(url);
    if (tamper) await kind.run(url, tamper);
    await check(url, await raes(["verify", "--store", url]));
  } finally {
    await kind.drop(url);
  }
}

/** A store kind the tamper tests run over: a fresh URL, direct SQL against it, and its removal. */
export interface TamperableStore {
  readonly name: string;
  /** A fresh store URL, or undefined when the server is not there (the caller skips). */
  fresh(dir: string): Promise<string | undefined>;
  run(url: string, sql: { readonly sqlite: string; readonly postgres: string }): Promise<void>;
  drop(url: string): Promise<void>;
}

/** SQLite in `dir`, and PostgreSQL in a schema of its own. */
export const TAMPERABLE_STORES: readonly TamperableStore[] = [
  {
    name: "SQLite",
    fresh: async (dir) => `sqlite:${dir}/store-${randomBytes(4).toString("hex")}.db`,
    run: async (url, sql) => {
      const db = new Database(url.slice("sqlite:".length));
      try {
        db.exec(sql.sqlite);
      } finally {
        db.close();
      }
    },
    drop: async () => undefined,
  },
  {
    name: "PostgreSQL",
    fresh: async () => `${POSTGRES_TEST_URL}?schema=raes_badge_${randomBytes(4).toString("hex")}`,
    run: async (url, sql) => withSchema(url, (client) => client.query(sql.postgres)),
    drop: async (url) =>
      withSchema(url, (client, schema) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)),
  },
];

async function withSchema(
  url: string,
  work: (client: pg.Client, schema: string) => Promise<unknown>,
): Promise<void> {
  const schema = new URL(url).searchParams.get("schema") ?? "";
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    await client.query(`SET search_path TO ${schema}`);
    await work(client, schema);
  } finally {
    await client.end();
  }
}
