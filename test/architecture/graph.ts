import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/** One import from a file in one folder of `src/` to a file in another (or the same) folder. */
export interface ImportEdge {
  /** The importing file's folder: its first path segment under the root, or the file name for top-level files. */
  readonly from: string;
  readonly to: string;
  /** The importing file, relative to the root (`/`-separated). */
  readonly file: string;
  readonly specifier: string;
  /** The imported source file, relative to the root (`/`-separated): `../b/index.js` read as `b/index.ts`. */
  readonly target: string;
}

/** One source file under the root and its length. */
export interface SourceFile {
  /** Relative to the root, `/`-separated. */
  readonly path: string;
  /** Its number of lines (newline characters, as an editor numbers them). */
  readonly lines: number;
}

/** A directed graph: each node's successors. */
export type Graph = ReadonlyMap<string, ReadonlySet<string>>;

function walk(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const posix = (path: string): string => path.split(sep).join("/");

/** The folder a root-relative path belongs to: `store/sql/records.ts` is `store`, `index.ts` is `index.ts`. */
export function folderOf(relativePath: string): string {
  return posix(relativePath).split("/")[0] ?? relativePath;
}

/** The folder a root-relative file sits directly in: `store/sql/records.ts` is `store/sql`, `index.ts` is ``. */
export function dirOf(relativePath: string): string {
  const cut = relativePath.lastIndexOf("/");
  return cut < 0 ? "" : relativePath.slice(0, cut);
}

/** Every `.ts` file under `root` and its line count. */
export function scanFiles(root: string): SourceFile[] {
  return walk(root)
    .map((path) => ({
      path: posix(relative(root, path)),
      lines: readFileSync(path, "utf8").split("\n").length - 1,
    }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The source file an ESM specifier names: the compiled `.js` name stands for its `.ts` source (the
 * code base's NodeNext imports always carry the extension).
 */
function sourceOf(path: string): string {
  return path.endsWith(".js") ? `${path.slice(0, -3)}.ts` : path;
}

/**
 * Every relative import under `root`: static, type-only, re-exports and dynamic `import()` alike,
 * as the TypeScript compiler's own pre-processor reads them (so comments and strings never count).
 */
export function scanImports(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const path of walk(root)) {
    const file = posix(relative(root, path));
    const info = ts.preProcessFile(readFileSync(path, "utf8"), true, true);
    for (const { fileName: specifier } of info.importedFiles) {
      if (!specifier.startsWith(".")) continue;
      const target = posix(relative(root, resolve(dirname(path), specifier)));
      if (target.startsWith("..")) continue;
      edges.push({ from: folderOf(file), to: folderOf(target), file, specifier, target: sourceOf(target) });
    }
  }
  return edges;
}

/**
 * The strongly connected components of a graph (Tarjan) that hold more than one node, or one node
 * with an arrow to itself: its circles. Each is sorted, and they come in the order of their first node.
 */
export function circles(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/**
 * One shortest walk that leaves `start` and comes back to it inside `members` (breadth-first), from
 * `start` to `start`: a concrete circle to show for a component that may hold many nodes.
 */
export function shortestCircle(graph: Graph, start: string, members: ReadonlySet<string>): string[] {
  const parent = new Map<string, string>();
  const queue: string[] = [start];
  for (let head = 0; head < queue.length; head += 1) {
    const node = queue[head] as string;
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = parent.get(at)) {
          path.push(at);
        }
        return [start, ...path.slice(1).reverse(), start];
      }
      if (parent.has(next)) continue;
      parent.set(next, node);
      queue.push(next);
    }
  }
  return [start];
}
