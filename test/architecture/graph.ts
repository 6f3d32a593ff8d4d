import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/** One import from a file in one folder of `src/` to a file in another (or the same) folder. */
export interface ImportEdge {
  /** The importing file's folder: its first path segment under the root, or the file name for top-level files. */
  readonly from: string;
  readonly to: string;
  /** The importing file, relative to the root. */
  readonly file: string;
  readonly specifier: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The folder a root-relative path belongs to: `store/sql/records.ts` is `store`, `index.ts` is `index.ts`. */
export function folderOf(relativePath: string): string {
  return relativePath.split(sep)[0] ?? relativePath;
}

/**
 * Every relative import under `root`: static, type-only, re-exports and dynamic `import()` alike,
 * as the TypeScript compiler's own pre-processor reads them (so comments and strings never count).
 */
export function scanImports(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const path of sourceFiles(root)) {
    const file = relative(root, path);
    const info = ts.preProcessFile(readFileSync(path, "utf8"), true, true);
    for (const { fileName: specifier } of info.importedFiles) {
      if (!specifier.startsWith(".")) continue;
      const target = relative(root, resolve(dirname(path), specifier));
      if (target.startsWith("..")) continue;
      edges.push({ from: folderOf(file), to: folderOf(target), file, specifier });
    }
  }
  return edges;
}
