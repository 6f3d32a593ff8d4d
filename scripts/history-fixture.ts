/**
 * `tsx scripts/history-fixture.ts FILE [COUNT]`: a SQLite store at FILE holding about COUNT history
 * events (default 100 000), one real invocation's six events, invocation and tool action copied
 * with fresh ids, for measuring the read commands (docs/hardening.md). Prints the event count.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fillSqliteHistory, historyTemplates } from "../bench/shared/index.js";
import { modelWithAttempts } from "../test/helpers/example.js";

const [file, count = "100000"] = process.argv.slice(2);
if (!file || !/^[0-9]{1,8}$/.test(count)) {
  process.stderr.write("usage: tsx scripts/history-fixture.ts FILE [COUNT]\n");
  process.exit(2);
}
const path = resolve(file);
if (existsSync(path)) {
  process.stderr.write(`${path} exists; give a new file\n`);
  process.exit(2);
}
const events = await fillSqliteHistory(
  path,
  await historyTemplates(modelWithAttempts(1_000_000)),
  Number(count),
);
process.stdout.write(`${events} events in sqlite:${path}\n`);
