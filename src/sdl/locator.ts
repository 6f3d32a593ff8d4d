import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type Node, type Pair } from "yaml";
import type { Anchor, SourceLocator } from "./diagnostics.js";

function decodeToken(token: string): string {
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** Finds where a JSON pointer lands in the YAML syntax tree, walking it only when a diagnostic needs a position. */
export class SyntaxTreeLocator implements SourceLocator {
  private readonly pairsByMap = new WeakMap<object, Map<string, Pair>>();

  constructor(
    private readonly doc: Document.Parsed | undefined,
    private readonly lines: LineCounter,
  ) {}

  /** The 1-based line and column of a character offset. */
  position(offset: number): { line: number; column: number } {
    // A line counter that saw no text (empty or oversized input) knows no lines.
    const pos = this.lines.linePos(offset);
    return { line: Math.max(1, pos.line), column: Math.max(1, pos.col) };
  }

  locate(pointer: string, anchor: Anchor): { line: number; column: number } {
    return this.position(this.offsetFor(pointer, anchor));
  }

  private offsetFor(pointer: string, anchor: Anchor): number {
    if (this.doc === undefined) return 0;
    let node = this.doc.contents as Node | null;
    let keyOffset: number | undefined;
    let offset = node?.range?.[0] ?? 0;
    const tokens = pointer === "" ? [] : pointer.slice(1).split("/").map(decodeToken);
    for (const [index, token] of tokens.entries()) {
      if (isAlias(node)) node = (node.resolve(this.doc) as Node | undefined) ?? null;
      let next: Node | null | undefined;
      if (isMap(node)) {
        const pair = this.pairs(node).get(token);
        if (pair === undefined) break;
        keyOffset = (pair.key as Node | null)?.range?.[0];
        next = pair.value as Node | null;
      } else if (isSeq(node)) {
        next = node.items[Number(token)] as Node | null | undefined;
        keyOffset = undefined;
        if (next === undefined) break;
      } else {
        break;
      }
      node = next;
      const last = index === tokens.length - 1;
      const valueOffset = node?.range?.[0];
      offset =
        last && anchor === "key" && keyOffset !== undefined
          ? keyOffset
          : (valueOffset ?? keyOffset ?? offset);
    }
    return offset;
  }

  private pairs(map: { items: Pair[] }): Map<string, Pair> {
    let index = this.pairsByMap.get(map);
    if (index === undefined) {
      index = new Map();
      for (const pair of map.items) {
        const key = pair.key as Node | null;
        if (isScalar(key) && typeof key.value === "string" && !index.has(key.value))
          index.set(key.value, pair);
      }
      this.pairsByMap.set(map, index);
    }
    return index;
  }
}
