import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "./example.js";

const SRC = join(ROOT, "src");
const DIST = join(ROOT, "dist");

let current: boolean | undefined;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Whether dist/ holds a build of every source file under src/, each at least as new as its source. */
function distIsCurrent(): boolean {
  current ??= sources(SRC).every((file) => {
    const built = join(DIST, relative(SRC, file)).replace(/\.ts$/, ".js");
    try {
      return statSync(built).mtimeMs >= statSync(file).mtimeMs;
    } catch {
      return false;
    }
  });
  return current;
}

/**
 * The node arguments that start the `raes` CLI in a child process with `args`: the built
 * `dist/cli/main.js` under plain node when dist/ is current (`npm test` builds it first) and no
 * argument names a TypeScript module (a `--runtime` harness needs tsx to load); otherwise the source
 * through tsx. A plain-node child starts in a fraction of tsx's CPU, which keeps `npm test` within
 * its time budget; a stale or missing build never runs, so a test never checks old code.
 */
export function cliNodeArgs(args: readonly string[]): string[] {
  const typescript = args.some((arg) => /\.[cm]?ts$/.test(arg));
  return typescript || !distIsCurrent()
    ? ["--import", "tsx", join(SRC, "cli", "main.ts"), ...args]
    : [join(DIST, "cli", "main.js"), ...args];
}
