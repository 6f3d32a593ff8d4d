import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * `mkdir -p` that fails fast: the missing folders are made one by one from the nearest existing
 * one, so a path no folder can be made in (under /proc, say) fails at once with the OS's error.
 * Node 20's `mkdirSync(path, { recursive: true })` loops for ever on such a path.
 */
export function makeDirectories(path: string, mode?: number): void {
  const missing: string[] = [];
  for (let at = resolve(path); !existsSync(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing.reverse()) mkdirSync(folder, mode === undefined ? {} : { mode });
}
