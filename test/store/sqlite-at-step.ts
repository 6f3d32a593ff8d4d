import Database from "better-sqlite3";
import { MIGRATIONS } from "../../src/store/sqlite/schema.js";

/**
 * A SQLite file as a raes-ts at schema step `version` left it: its migrations up to that step
 * applied and recorded. Returns the open database, for the test to add the rows of that time.
 */
export function sqliteAtStep(file: string, version: number, appliedAt = "2025-01-01"): Database.Database {
  const old = new Database(file);
  old.exec(
    "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const record = old.prepare("INSERT INTO schema_migrations VALUES (?, ?, ?)");
  for (const migration of MIGRATIONS.filter((m) => m.version <= version)) {
    old.exec(migration.sql);
    record.run(migration.version, migration.name, appliedAt);
  }
  return old;
}
