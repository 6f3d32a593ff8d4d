import { randomBytes } from "node:crypto";
import { userInfo } from "node:os";
import pg from "pg";
import { isCi } from "../helpers/ci.js";

/** The test server: env RAES_TEST_POSTGRES_URL, else database `test` on 127.0.0.1:5432 as PGUSER or the OS user. */
export const POSTGRES_TEST_URL =
  process.env.RAES_TEST_POSTGRES_URL ??
  `postgres://${encodeURIComponent(process.env.PGUSER ?? userInfo().username)}@127.0.0.1:5432/test`;

/** Why the test server cannot be used, or undefined when it answers. */
export async function postgresUnavailableReason(url = POSTGRES_TEST_URL): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    const { message, code } = error as { message?: string; code?: string };
    return message || code || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * True when PostgreSQL tests can run. Otherwise prints a loud `POSTGRES UNAVAILABLE: skipping` line
 * and returns false, or throws when env RAES_REQUIRE_POSTGRES=1 or CI is set (CI must not skip).
 */
export async function postgresAvailable(label: string): Promise<boolean> {
  const reason = await postgresUnavailableReason();
  if (reason === undefined) return true;
  const where = `(${POSTGRES_TEST_URL}: ${reason})`;
  if (process.env.RAES_REQUIRE_POSTGRES === "1" || isCi()) {
    throw new Error(
      `POSTGRES UNAVAILABLE: cannot run ${label} ${where}, and RAES_REQUIRE_POSTGRES=1 or CI forbids skipping`,
    );
  }
  const message = `POSTGRES UNAVAILABLE: skipping ${label} ${where}`;
  console.error(`\n${"!".repeat(72)}\n${message}\n${"!".repeat(72)}\n`);
  return false;
}

/** A fresh, unique schema on the test server: its store URL and a `drop` that removes it. */
export function freshSchema(prefix = "raes_test"): {
  schema: string;
  url: string;
  drop: () => Promise<void>;
} {
  const schema = `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
  const url = new URL(POSTGRES_TEST_URL);
  url.searchParams.set("schema", schema);
  return { schema, url: url.toString(), drop: () => dropSchema(schema) };
}

/**
 * Drops a test schema and everything in it. A backend of a process the test killed can still be
 * finishing its last statement; when the drop and that statement lock the schema's tables in opposite
 * orders, PostgreSQL picks one of them as a deadlock victim. The drop is then tried again once that
 * statement is over.
 */
export async function dropSchema(schema: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== "40P01" || attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/** Runs one statement on the test server through its own short-lived connection. */
export async function adminQuery<Row extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}
