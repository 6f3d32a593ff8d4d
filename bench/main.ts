/**
 * `npm run bench -- <suite> [args...]` runs `bench/<suite>.ts`. A suite is any file here that exports a
 * default function or a `run<Suite>Bench` function taking the remaining arguments; adding a file adds a suite.
 * With no suite (or `list`) it lists the suites; `all` runs every one in turn.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

type SuiteRunner = (argv: readonly string[]) => unknown;

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const SUITE_EXPORT = /export\s+(default|(async\s+)?function\s+run\w*Bench)\b/;

function runnerName(suite: string): string {
  const camel = suite.replace(/(^|[-_])([a-z0-9])/g, (_, _sep: string, letter: string) =>
    letter.toUpperCase(),
  );
  return `run${camel}Bench`;
}

/** The suites in `bench/`: files other than this one that export a runner. */
export function listSuites(): string[] {
  return readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith(".ts") && file !== "main.ts")
    .filter((file) => SUITE_EXPORT.test(readFileSync(join(BENCH_DIR, file), "utf8")))
    .map((file) => file.slice(0, -".ts".length))
    .sort();
}

async function loadRunner(suite: string): Promise<SuiteRunner | undefined> {
  if (!listSuites().includes(suite)) return undefined;
  const module = (await import(pathToFileURL(join(BENCH_DIR, `${suite}.ts`)).href)) as Record<
    string,
    unknown
  >;
  const runner = module.default ?? module[runnerName(suite)];
  return typeof runner === "function" ? (runner as SuiteRunner) : undefined;
}

async function main(argv: readonly string[]): Promise<number> {
  const [suite, ...rest] = argv;
  if (suite === undefined || suite === "list") {
    process.stdout.write(
      `bench suites: ${listSuites().join(", ")}\nusage: npm run bench -- <suite|all> [args]\n`,
    );
    return 0;
  }
  const suites = suite === "all" ? listSuites() : [suite];
  for (const name of suites) {
    const runner = await loadRunner(name);
    if (runner === undefined) {
      process.stderr.write(`unknown bench suite '${name}'; suites: ${listSuites().join(", ")}\n`);
      return 2;
    }
    await runner(rest);
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
