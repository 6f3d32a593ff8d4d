/**
 * The page `npm run bench -- --markdown` writes (docs/benchmarks.md by default): the tables and notes
 * every suite of this one run printed, under the commit, the date and the machine's load, and the
 * command that made it. It holds this run only: a new run replaces the page, it never adds to it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { dirname, join } from "node:path";
import type { Printed } from "./tables.js";

/** One suite of the run: its name, the arguments it ran with, and what it printed. */
export interface SuiteRun {
  readonly suite: string;
  readonly args: readonly string[];
  readonly printed: readonly Printed[];
  readonly seconds: number;
}

/** Where and when the run was made. */
export interface PageContext {
  /** The command line after `npm run bench --`. */
  readonly argv: readonly string[];
  /** `git rev-parse --short HEAD`, with `-dirty` when the work tree had changes. */
  readonly commit: string;
  readonly date: Date;
  /** `os.loadavg()` when the run ended: 1, 5 and 15 minutes. */
  readonly load: readonly number[];
  readonly cores: number;
  readonly node: string;
}

/** Quotes a shell word that needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** A table cell: pipes escaped, line breaks as `<br>`, the indentation of a nested row kept. */
function cell(text: string): string {
  const indent = /^ */.exec(text)?.[0].length ?? 0;
  const body = text.trim().replaceAll("|", "\\|").replaceAll("\n", "<br>");
  return `${"&nbsp;".repeat(indent)}${body}`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (row: readonly string[]) => `| ${header.map((_, i) => cell(row[i] ?? "")).join(" | ")} |`;
  return [line(header), `|${header.map(() => "---").join("|")}|`, ...rows.map(line)].join("\n");
}

const code = (text: string) => `\`${text}\``;

/** Where an image a suite drew goes, relative to the page. */
const imagePath = (name: string) => `benchmarks/${name}`;

/** The page's markdown. */
export function renderBenchmarksPage(runs: readonly SuiteRun[], context: PageContext): string {
  const command = `npm run bench -- ${context.argv.map(shellWord).join(" ")}`;
  const load = context.load.map((value) => value.toFixed(2)).join(" / ");
  const date = `${context.date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const out: string[] = [
    "# Benchmarks",
    "",
    `Made by ${code(command)} at commit ${code(context.commit)} on ${date}, on ${context.cores} cores ` +
      `with a load average of ${load} (1 / 5 / 15 min, \`os.loadavg()\`) as the run ended; Node ${context.node}.`,
    "",
    "This page holds that one run and nothing else. Each suite compares what raes-ts does with a floor " +
      "measured in the same run: both sides get the same warm-up, then their blocks alternate, so a " +
      "change in machine load hits both alike (`bench/shared/timing.ts`). Read the ratios to the floor; " +
      "the absolute times say as much about the machine's load as about raes-ts.",
    "",
    `Suites: ${runs.map((run) => code(run.suite)).join(", ")}. Each ran with the arguments shown beside ` +
      "its name: `--quick`, a smaller count or fewer rounds than the defaults make a smaller and noisier " +
      "run than the suite's own; a suite shown without arguments ran at its default sizes.",
    "",
    "## Reproduce",
    "",
    "```sh",
    "npm run build  # the cli and operations suites start the built raes",
    command,
    "```",
    "",
    "Every suite at its default sizes: `npm run bench -- all --markdown`. `npm run bench` lists the " +
      "suites; each suite's options are described at the top of `bench/<suite>/index.ts`.",
  ];
  for (const run of runs) {
    const args = run.args.length === 0 ? "default sizes" : code(run.args.join(" "));
    out.push("", `## ${code(run.suite)} (${args}; ${run.seconds.toFixed(1)} s)`);
    if (run.printed.length === 0) out.push("", "It printed no table.");
    for (const item of run.printed) {
      if (item.kind === "table") out.push("", `**${item.title}**`, "", table(item.header, item.rows));
      else if (item.kind === "image") out.push("", `![${item.alt}](${imagePath(item.name)})`);
      else out.push("", item.text.split("\n").join("  \n"));
    }
  }
  return `${out.join("\n")}\n`;
}

/** The commit the work tree is at, marked `-dirty` when it has uncommitted changes. */
function currentCommit(root: string): string {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
  try {
    const commit = git("rev-parse", "--short", "HEAD");
    return git("status", "--porcelain", "--untracked-files=no") === "" ? commit : `${commit}-dirty`;
  } catch {
    return "unknown (not a git checkout)";
  }
}

/** Writes the page of `runs` to `path`; `root` is the checkout whose commit it names. */
export function writeBenchmarksPage(
  path: string,
  runs: readonly SuiteRun[],
  argv: readonly string[],
  root: string,
): void {
  const page = renderBenchmarksPage(runs, {
    argv,
    commit: currentCommit(root),
    date: new Date(),
    load: loadavg(),
    cores: availableParallelism(),
    node: process.version,
  });
  mkdirSync(dirname(path), { recursive: true });
  for (const item of runs.flatMap((run) => run.printed)) {
    if (item.kind !== "image") continue;
    const file = join(dirname(path), imagePath(item.name));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, item.png);
  }
  writeFileSync(path, page);
}
