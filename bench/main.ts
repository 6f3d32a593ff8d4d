/**
 * `npm run bench -- <suite> [args...]` runs the suite in `bench/<suite>/`. A suite is any folder here
 * whose `index.ts` exports a default function or a `run<Suite>Bench` function taking the remaining
 * arguments; adding a folder adds a suite (`shared/` holds what suites share and is none).
 * With no suite (or `list`) it lists the suites; `all` runs every one in turn with the same arguments;
 * `+` separates several suites with their own arguments (`cli 1 + compile --quick`).
 * `--markdown` (anywhere) writes the tables of the run to docs/benchmarks.md once it is over, and
 * `--markdown=PATH` to PATH instead (bench/shared/page.ts).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type SuiteRun, takePrinted, writeBenchmarksPage } from "./shared/index.js";

type SuiteRunner = (argv: readonly string[]) => unknown;

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = join(BENCH_DIR, "..");
const SUITE_EXPORT = /export\s+(default|(async\s+)?function\s+run\w*Bench)\b/;
const DEFAULT_PAGE = join(ROOT, "docs", "benchmarks.md");

function runnerName(suite: string): string {
  const camel = suite.replace(/(^|[-_])([a-z0-9])/g, (_, _sep: string, letter: string) =>
    letter.toUpperCase(),
  );
  return `run${camel}Bench`;
}

const suiteDoor = (suite: string) => join(BENCH_DIR, suite, "index.ts");

/** The suites in `bench/`: folders whose door exports a runner. */
export function listSuites(): string[] {
  return readdirSync(BENCH_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(suiteDoor(entry.name)))
    .map((entry) => entry.name)
    .filter((suite) => SUITE_EXPORT.test(readFileSync(suiteDoor(suite), "utf8")))
    .sort();
}

async function loadRunner(suite: string): Promise<SuiteRunner | undefined> {
  if (!listSuites().includes(suite)) return undefined;
  const module = (await import(pathToFileURL(suiteDoor(suite)).href)) as Record<string, unknown>;
  const runner = module.default ?? module[runnerName(suite)];
  return typeof runner === "function" ? (runner as SuiteRunner) : undefined;
}

/** The command line without `--markdown[=PATH]`, and the page to write (none without the flag). */
function markdownOption(argv: readonly string[]): { rest: string[]; page: string | undefined } {
  let page: string | undefined;
  const rest: string[] = [];
  for (const arg of argv) {
    if (arg === "--markdown") page = DEFAULT_PAGE;
    else if (arg.startsWith("--markdown=")) page = resolve(arg.slice("--markdown=".length));
    else rest.push(arg);
  }
  return { rest, page };
}

/** The suites to run, in order, each with its arguments: `+` separates them, `all` names every suite. */
function plan(args: readonly string[]): { suite: string; args: string[] }[] {
  const groups: string[][] = [[]];
  for (const arg of args) {
    if (arg === "+") groups.push([]);
    else groups.at(-1)?.push(arg);
  }
  return groups.flatMap(([suite, ...rest]) => {
    if (suite === undefined) return [];
    return suite === "all"
      ? listSuites().map((name) => ({ suite: name, args: rest }))
      : [{ suite, args: rest }];
  });
}

async function main(argv: readonly string[]): Promise<number> {
  const { rest, page } = markdownOption(argv);
  const [first] = rest;
  if (first === undefined || first === "list") {
    process.stdout.write(
      `bench suites: ${listSuites().join(", ")}\n` +
        "usage: npm run bench -- <suite|all> [args] [+ <suite> [args]...] [--markdown[=PATH]]\n",
    );
    return page === undefined ? 0 : 2;
  }
  const runs: SuiteRun[] = [];
  for (const { suite, args } of plan(rest)) {
    const runner = await loadRunner(suite);
    if (runner === undefined) {
      process.stderr.write(`unknown bench suite '${suite}'; suites: ${listSuites().join(", ")}\n`);
      return 2;
    }
    takePrinted();
    const started = performance.now();
    await runner(args);
    runs.push({ suite, args, printed: takePrinted(), seconds: (performance.now() - started) / 1000 });
  }
  if (page !== undefined) {
    writeBenchmarksPage(page, runs, argv, ROOT);
    process.stdout.write(`\nwrote ${page}\n`);
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
