import { circles, type Graph, type ImportEdge } from "./graph.js";

/** Arrows no folder may draw, whatever the documented layering allows, as data. */
export interface ForbiddenArrows {
  readonly from: string;
  readonly to: readonly string[];
  /** Why the arrow would be wrong, printed with a violation. */
  readonly why: string;
}

/** The forbidden arrows: the layering of docs/architecture.md, spelled out where a wrong arrow would hurt most. */
export const FORBIDDEN_ARROWS: readonly ForbiddenArrows[] = [
  { from: "port", to: ["runtime", "cli"], why: "the port is below the runtime and the CLI" },
  { from: "port", to: ["store"], why: "the port writes through its ledger interface, not a store" },
  {
    from: "store",
    to: ["port", "runtime", "history", "operations", "mcp"],
    why: "a store knows only the record vocabulary",
  },
  { from: "history", to: ["store"], why: "history builds events from records, not from a store" },
  { from: "compiler", to: ["store", "runtime"], why: "compilation is pure" },
  { from: "sdl", to: ["compiler"], why: "the compiler reads the SDL, never the reverse" },
  { from: "mcp", to: ["runtime", "cli"], why: "the MCP gateway knows only the remote port" },
  { from: "runtime", to: ["cli"], why: "the CLI drives the runtime, never the reverse" },
  {
    from: "mcp",
    to: ["host"],
    why: "host mode composes the gateway and the runtime; the gateway never knows it",
  },
  { from: "runtime", to: ["host"], why: "host mode is a participant runtime above the manager" },
  {
    from: "serve",
    to: ["cli", "runtime", "host", "mcp", "port"],
    why: "the operator console reads and decides over a store; it runs nothing",
  },
  {
    from: "timeline",
    to: ["serve"],
    why: "the console draws its timelines with the timeline, never the reverse",
  },
];

/** What a folder may import: the allowed arrows of docs/architecture.md. */
export type AllowedArrows = ReadonlyMap<string, ReadonlySet<string>>;

/** One broken rule. */
export type Violation =
  | { readonly kind: "cycle"; readonly folders: readonly string[] }
  | { readonly kind: "forbidden"; readonly edge: ImportEdge; readonly why: string }
  | { readonly kind: "undocumented"; readonly edge: ImportEdge }
  | { readonly kind: "unknown-folder"; readonly folder: string };

/** The folder graph of a list of imports, without arrows from a folder to itself. */
export function folderGraph(edges: readonly ImportEdge[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!graph.has(from)) graph.set(from, new Set());
    if (!graph.has(to)) graph.set(to, new Set());
    if (from !== to) graph.get(from)?.add(to);
  }
  return graph;
}

/** The strongly connected components with more than one folder (Tarjan), each sorted: the cycles. */
export function folderCycles(graph: Graph): string[][] {
  return circles(graph);
}

/**
 * Every violation in an import graph: folder cycles, forbidden arrows, and (when `allowed` is given)
 * arrows or folders the documented layering does not list.
 */
export function checkArchitecture(
  edges: readonly ImportEdge[],
  forbidden: readonly ForbiddenArrows[] = FORBIDDEN_ARROWS,
  allowed?: AllowedArrows,
): Violation[] {
  const violations: Violation[] = folderCycles(folderGraph(edges)).map((folders) => ({
    kind: "cycle" as const,
    folders,
  }));
  const unknown = new Set<string>();
  for (const edge of edges) {
    if (edge.from === edge.to) continue;
    const rule = forbidden.find((r) => r.from === edge.from && r.to.includes(edge.to));
    if (rule) violations.push({ kind: "forbidden", edge, why: rule.why });
    if (allowed === undefined) continue;
    for (const folder of [edge.from, edge.to]) if (!allowed.has(folder)) unknown.add(folder);
    if (allowed.has(edge.from) && allowed.has(edge.to) && !allowed.get(edge.from)?.has(edge.to)) {
      violations.push({ kind: "undocumented", edge });
    }
  }
  for (const folder of [...unknown].sort()) violations.push({ kind: "unknown-folder", folder });
  return violations;
}

/** One line per violation, for assertion messages. */
export function describeViolation(violation: Violation): string {
  switch (violation.kind) {
    case "cycle":
      return `cycle between folders: ${violation.folders.join(" ↔ ")}`;
    case "forbidden":
      return `forbidden ${violation.edge.from} → ${violation.edge.to} (${violation.why}): ${violation.edge.file} imports ${violation.edge.specifier}`;
    case "undocumented":
      return `${violation.edge.from} → ${violation.edge.to} is not an allowed arrow of docs/architecture.md: ${violation.edge.file} imports ${violation.edge.specifier}`;
    case "unknown-folder":
      return `folder ${violation.folder} has no line in docs/architecture.md`;
  }
}
