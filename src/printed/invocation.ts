import { existsSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Built code runs as .js under plain node; source runs as .ts under tsx (tests), and so must a pasted command.
const FROM_SOURCE = import.meta.url.endsWith(".ts");

/** Where the CLI this code belongs to lives: `dist/cli/main.js` (or `src/cli/main.ts` from source). */
export const CLI_MAIN = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "cli",
  `main${FROM_SOURCE ? ".ts" : ".js"}`,
);

/** What decides how a printed command starts: the environment it will be pasted into. */
export interface InvocationContext {
  /** The PATH a pasted command is looked up on. */
  readonly path: string;
  /** The directory the command is printed in (where `npx raes` would look for the project's bin). */
  readonly cwd: string;
  /** The node binary running this CLI. */
  readonly execPath: string;
  /** This CLI's entry file. */
  readonly main: string;
  /** From source, the tsx loader a pasted command must import (a file URL). */
  readonly tsx?: string;
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The first executable file NAME on PATH, as a shell would find it. A project's `node_modules/.bin` is
 * skipped: `npx` and `npm run` put it on the PATH of the process they start, not on the person's.
 */
function onPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === "" || /[\\/]node_modules[\\/]\.bin[\\/]?$/.test(dir)) continue;
    const candidate = join(dir, name);
    const stat = statSync(candidate, { throwIfNoEntry: false });
    if (stat?.isFile() && (stat.mode & 0o111) !== 0) return candidate;
  }
  return undefined;
}

/** The nearest `node_modules/.bin/raes` from `cwd` up, as `npx raes` finds a project's own bin. */
function projectBin(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const bin = join(dir, "node_modules", ".bin", "raes");
    if (existsSync(bin)) return bin;
    if (existsSync(join(dir, "package.json")) || dirname(dir) === dir) return undefined;
  }
}

/**
 * The words a printed command starts with, so it runs as printed: `raes` when the first `raes` on
 * PATH is this CLI, else `npx raes` when the project around `cwd` has this CLI as its bin, else
 * `node /abs/dist/cli/main.js` (node by its absolute path when the `node` on PATH is another one).
 */
export function invocationWords(context: InvocationContext): string[] {
  const main = real(context.main);
  if (context.tsx !== undefined) return [nodeWord(context), "--import", context.tsx, main ?? context.main];
  const global = onPath("raes", context.path);
  if (main !== undefined && global !== undefined && real(global) === main) return ["raes"];
  const local = projectBin(context.cwd);
  if (main !== undefined && local !== undefined && real(local) === main) return ["npx", "raes"];
  return [nodeWord(context), main ?? context.main];
}

/** `node` when it is the node running this CLI, else that node's absolute path. */
function nodeWord(context: InvocationContext): string {
  const node = onPath("node", context.path);
  return node !== undefined && real(node) === real(context.execPath) ? "node" : context.execPath;
}

let current: string[] | undefined;

/** How this process's CLI is invoked by a printed command (see `invocationWords`); read once per process. */
export function raesInvocation(): readonly string[] {
  current ??= invocationWords({
    path: process.env.PATH ?? "",
    cwd: process.cwd(),
    execPath: process.execPath,
    main: CLI_MAIN,
    ...(FROM_SOURCE ? { tsx: import.meta.resolve("tsx") } : {}),
  });
  return current;
}
