import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { compiledChild, distIsCurrent } from "./compiled/index.js";
import { ROOT } from "./example.js";

const SRC = join(ROOT, "src");
const DIST = join(ROOT, "dist");
const TYPESCRIPT = /\.[cm]?ts$/;

/**
 * The node arguments that start the `raes` CLI in a child process with `args`: the built
 * `dist/cli/main.js` under plain node when dist/ is current (`npm test` builds it first), with a
 * TypeScript test module among the arguments (a `--runtime` harness) replaced by its build
 * (`compiled/`); otherwise the source through tsx. A plain-node child starts in a fraction of tsx's CPU, which keeps `npm test` within
 * its time budget; a stale or missing build never runs, so a test never checks old code.
 */
export function cliNodeArgs(args: readonly string[]): string[] {
  const source = cliSourceArgs(args);
  if (!distIsCurrent()) return source;
  // A TypeScript test module (a `--runtime` harness) runs as its plain-JavaScript build over dist/.
  const built = args.map((arg) =>
    TYPESCRIPT.test(arg) && existsSync(resolve(ROOT, arg)) ? (compiledChild(arg) ?? arg) : arg,
  );
  return built.some((arg) => TYPESCRIPT.test(arg)) ? source : [join(DIST, "cli", "main.js"), ...built];
}

/**
 * The node arguments that start the `raes` CLI from source through tsx, whatever the build: for a
 * test that compares the CLI's output with what this process renders from source, commands printed
 * for a person included (they name the entry file they were printed by).
 */
export function cliSourceArgs(args: readonly string[]): string[] {
  return ["--import", "tsx", join(SRC, "cli", "main.ts"), ...args];
}
