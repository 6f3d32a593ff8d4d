import { circles, dirOf, type Graph, type ImportEdge, type SourceFile, shortestCircle } from "./graph.js";

/** The sizes docs/architecture.md sets: a file over `softLines` is worth a look, over `hardLines` it fails. */
export interface Limits {
  readonly softLines: number;
  readonly hardLines: number;
  /** The most `.ts` files one folder may hold directly. */
  readonly filesPerFolder: number;
}

export const LIMITS: Limits = { softLines: 450, hardLines: 800, filesPerFolder: 15 };

/** One import that closes a circle: the importing file and what it names. */
export interface Hop {
  readonly file: string;
  readonly specifier: string;
}

/** One broken rule of the shape of the tree: doors, circles of files and of subfolders, sizes. */
export type StructureViolation =
  | {
      readonly kind: "door";
      readonly edge: ImportEdge;
      readonly door: string;
      /** The tree has no such door yet: the folder needs one. */
      readonly missing: boolean;
    }
  | { readonly kind: "file-cycle"; readonly files: readonly string[]; readonly circle: readonly Hop[] }
  | {
      readonly kind: "subfolder-cycle";
      readonly folder: string;
      readonly subfolders: readonly string[];
      readonly circle: readonly Hop[];
    }
  | { readonly kind: "too-long"; readonly file: string; readonly lines: number; readonly limit: number }
  | {
      readonly kind: "too-many-files";
      readonly folder: string;
      readonly count: number;
      readonly limit: number;
    };

const segments = (folder: string): string[] => (folder === "" ? [] : folder.split("/"));

/** The deepest folder two root-relative folders share, as segments. */
function commonSegments(a: readonly string[], b: readonly string[]): string[] {
  const common: string[] = [];
  for (let i = 0; i < Math.min(a.length, b.length) && a[i] === b[i]; i += 1) common.push(a[i] as string);
  return common;
}

/**
 * The door an import from `file` to `target` must go through instead, or undefined when it may
 * import `target` itself. With C the deepest folder both share: a file directly in C is open to
 * it; anything deeper is reached only through the `index.ts` of C's subfolder that holds it.
 */
export function requiredDoor(file: string, target: string): string | undefined {
  const to = segments(dirOf(target));
  const common = commonSegments(segments(dirOf(file)), to);
  if (to.length === common.length) return undefined;
  const door = [...to.slice(0, common.length + 1), "index.ts"].join("/");
  return target === door ? undefined : door;
}

/**
 * Every import that reaches into another folder past its door, once per importing file and
 * specifier (a value and a type import of one module are one violation). Given the tree's files,
 * a door the tree does not have is marked missing.
 */
export function doorViolations(
  edges: readonly ImportEdge[],
  files?: readonly SourceFile[],
): StructureViolation[] {
  const present = files === undefined ? undefined : new Set(files.map((file) => file.path));
  const seen = new Set<string>();
  return edges.flatMap((edge) => {
    const door = requiredDoor(edge.file, edge.target);
    const key = `${edge.file}\0${edge.specifier}`;
    if (door === undefined || seen.has(key)) return [];
    seen.add(key);
    return [{ kind: "door" as const, edge, door, missing: present !== undefined && !present.has(door) }];
  });
}

/** The first import (in file order) behind each arrow of a circle of nodes `[a, b, …, a]`. */
function hopsOf(circle: readonly string[], behind: (from: string, to: string) => Hop | undefined): Hop[] {
  return circle.slice(1).flatMap((to, i) => {
    const hop = behind(circle[i] as string, to);
    return hop === undefined ? [] : [hop];
  });
}

const sortedEdges = (edges: readonly ImportEdge[]): ImportEdge[] =>
  [...edges].sort((a, b) => a.file.localeCompare(b.file) || a.specifier.localeCompare(b.specifier));

/** The file graph: each file's imported files, type-only imports included. */
export function fileGraph(edges: readonly ImportEdge[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { file, target } of edges) {
    if (!graph.has(file)) graph.set(file, new Set());
    if (!graph.has(target)) graph.set(target, new Set());
    graph.get(file)?.add(target);
  }
  return graph;
}

/** Every circle of files, with one shortest circle through its first file and the imports along it. */
export function fileCycles(edges: readonly ImportEdge[]): StructureViolation[] {
  const graph = fileGraph(edges);
  const ordered = sortedEdges(edges);
  return circles(graph).map((files) => {
    const circle = shortestCircle(graph, files[0] as string, new Set(files));
    return {
      kind: "file-cycle" as const,
      files,
      circle: hopsOf(circle, (from, to) => ordered.find((e) => e.file === from && e.target === to)),
    };
  });
}

/**
 * For each folder below the root, the graph between its subfolders: an import from a file under
 * subfolder X to a file under its sibling Y is an arrow X → Y. (The root's folders are the layer
 * table's, and its circles are the folder cycles of rules.ts.)
 */
export function subfolderGraphs(edges: readonly ImportEdge[]): Map<string, Map<string, Set<string>>> {
  const graphs = new Map<string, Map<string, Set<string>>>();
  for (const { file, target } of edges) {
    const from = segments(dirOf(file));
    const to = segments(dirOf(target));
    const common = commonSegments(from, to);
    if (common.length === 0 || from.length === common.length || to.length === common.length) continue;
    const folder = common.join("/");
    const graph = graphs.get(folder) ?? new Map<string, Set<string>>();
    graphs.set(folder, graph);
    const [x, y] = [from[common.length] as string, to[common.length] as string];
    for (const node of [x, y]) if (!graph.has(node)) graph.set(node, new Set());
    graph.get(x)?.add(y);
  }
  return graphs;
}

/** Every circle between sibling subfolders of one folder, with the imports along one shortest circle. */
export function subfolderCycles(edges: readonly ImportEdge[]): StructureViolation[] {
  const ordered = sortedEdges(edges);
  const graphs = subfolderGraphs(edges);
  return [...graphs.keys()].sort().flatMap((folder) => {
    const graph = graphs.get(folder) as Graph;
    const under = (child: string, path: string): boolean => path.startsWith(`${folder}/${child}/`);
    return circles(graph).map((subfolders) => ({
      kind: "subfolder-cycle" as const,
      folder,
      subfolders,
      circle: hopsOf(shortestCircle(graph, subfolders[0] as string, new Set(subfolders)), (from, to) =>
        ordered.find((e) => under(from, e.file) && under(to, e.target)),
      ),
    }));
  });
}

/** The files over `limit` lines, longest first. */
export function longFiles(files: readonly SourceFile[], limit: number): SourceFile[] {
  return files
    .filter((file) => file.lines > limit)
    .sort((a, b) => b.lines - a.lines || a.path.localeCompare(b.path));
}

/** The `.ts` files each folder holds directly (the root is ``). */
export function filesPerFolder(files: readonly SourceFile[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { path } of files) counts.set(dirOf(path), (counts.get(dirOf(path)) ?? 0) + 1);
  return counts;
}

/** Every folder holding more than `limit` source files directly, most crowded first. */
export function crowdedFolders(files: readonly SourceFile[], limit: number): StructureViolation[] {
  return [...filesPerFolder(files)]
    .filter(([, count]) => count > limit)
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([folder, count]) => ({ kind: "too-many-files" as const, folder, count, limit }));
}

/** Every broken rule of the tree's shape: doors, circles of files and of subfolders, hard length, crowding. */
export function checkStructure(
  edges: readonly ImportEdge[],
  files: readonly SourceFile[],
  limits: Limits = LIMITS,
): StructureViolation[] {
  return [
    ...doorViolations(edges, files),
    ...fileCycles(edges),
    ...subfolderCycles(edges),
    ...longFiles(files, limits.hardLines).map((file) => ({
      kind: "too-long" as const,
      file: file.path,
      lines: file.lines,
      limit: limits.hardLines,
    })),
    ...crowdedFolders(files, limits.filesPerFolder),
  ];
}

/** The figures the architecture script prints: how far the tree is from its rules. */
export interface Figures {
  readonly crowdedFolders: number;
  readonly filesOverHard: number;
  readonly fileCycles: number;
  readonly doorViolations: number;
  readonly filesOverSoft: number;
}

export function figures(
  edges: readonly ImportEdge[],
  files: readonly SourceFile[],
  limits: Limits = LIMITS,
): Figures {
  return {
    crowdedFolders: crowdedFolders(files, limits.filesPerFolder).length,
    filesOverHard: longFiles(files, limits.hardLines).length,
    fileCycles: fileCycles(edges).length,
    doorViolations: doorViolations(edges).length,
    filesOverSoft: longFiles(files, limits.softLines).length,
  };
}

/** The imports along a circle; "e.g." when the circle passes through only some of the component. */
const through = (circle: readonly Hop[], members: number): string =>
  `${circle.length < members ? ", e.g." : ":"} ${circle.map((hop) => `${hop.file} imports ${hop.specifier}`).join("; ")}`;

const shown = (folder: string): string => (folder === "" ? "the root folder" : `${folder}/`);

/** One line per violation, for assertion messages. */
export function describeStructureViolation(violation: StructureViolation): string {
  switch (violation.kind) {
    case "door":
      return `${violation.edge.file} imports ${violation.edge.specifier}, a file inside ${dirOf(violation.door)}/: import its door ${violation.door}${violation.missing ? " (which it does not have yet)" : ""}`;
    case "file-cycle":
      return `circle of ${violation.files.length} files (${violation.files.join(", ")})${through(violation.circle, violation.files.length)}`;
    case "subfolder-cycle":
      return `circle between subfolders of ${violation.folder}/: ${violation.subfolders.join(" ↔ ")}${through(violation.circle, violation.subfolders.length)}`;
    case "too-long":
      return `${violation.file} has ${violation.lines} lines, over the limit of ${violation.limit}`;
    case "too-many-files":
      return `${shown(violation.folder)} holds ${violation.count} source files, over the limit of ${violation.limit}`;
  }
}
