import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT } from "./example.js";

/** The package as `npm pack` made it, extracted into `node_modules/raes-ts` of a fresh project. */
export interface PackedPackage {
  /** The tarball's path. */
  readonly tarball: string;
  /** The paths inside the package, as `npm pack` lists them. */
  readonly files: readonly string[];
  /** Where the package was extracted: PROJECT/node_modules/raes-ts. */
  readonly installed: string;
}

/**
 * `npm pack` the package as built (dist/ must be current: `npm run build`), then extract the tarball
 * the way npm lays it out, into node_modules/raes-ts of PROJECT, which gets a package.json of its own.
 * No dependency is installed: the caller links them, so a test needs neither the registry nor a compiler.
 */
export function packInto(project: string): PackedPackage {
  const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", project], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(pack.status, 0, pack.stderr);
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  assert.ok(info);
  const installed = join(project, "node_modules", "raes-ts");
  mkdirSync(installed, { recursive: true });
  const tarball = join(project, info.filename);
  const untar = spawnSync("tar", ["xzf", tarball, "-C", installed, "--strip-components=1"]);
  assert.equal(untar.status, 0, String(untar.stderr));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "packed-user", type: "module" }));
  return { tarball, files: info.files.map((f) => f.path), installed };
}

/**
 * The packages `npm ci --omit=dev` installs at the top of node_modules: every package of this
 * checkout's lockfile that a dependency of raes-ts (not a devDependency, and so none of the optional
 * peer dependencies, which the repository installs as devDependencies) brings in.
 */
export function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith("node_modules/") && entry.dev !== true)
    .map(([path]) => path.slice("node_modules/".length))
    .filter((name) => !name.includes("/node_modules/"));
}

/**
 * Lays out PROJECT/node_modules as an install of only NAMES would: each a link to this checkout's copy
 * (a package's own nested node_modules come with it). Run node with `--preserve-symlinks` so a linked
 * package resolves its own imports here too, not in the checkout's full node_modules.
 */
export function linkPackages(project: string, names: readonly string[]): void {
  for (const name of names) {
    const target = join(ROOT, "node_modules", name);
    // An optional package for another platform is in the lockfile but not in node_modules.
    if (!existsSync(target)) continue;
    const link = join(project, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, "dir");
  }
}
