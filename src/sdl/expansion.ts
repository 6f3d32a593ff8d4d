import { isAlias, isMap, isScalar, isSeq, type Node, type Pair } from "yaml";

/** A path built only when a finding needs it, so converting a large document allocates no pointer strings. */
export interface PathLink {
  readonly parent: PathLink | undefined;
  readonly token: string | number;
}

/** What one anchored node converts to, and the work its expansion counts: nodes and nested dereferences. */
export interface Expansion {
  readonly value: unknown;
  readonly nodes: number;
  readonly aliases: number;
}

/** The converter's counts against its limits; each count fails (throws) where its limit is passed. */
export interface ExpansionCounter {
  countNode(path: PathLink | undefined): void;
  countAlias(path: PathLink | undefined): void;
  /** True when adding the expansion's counts passes no limit. */
  fits(expansion: Expansion): boolean;
  add(expansion: Expansion): void;
}

/**
 * Counts an expansion that passes a limit node by node, in the order converting it would, skipping each
 * nested expansion that still fits, until the count fails at the place the limit is passed. Walked with
 * an explicit stack, since a chain of aliases can be longer than the call stack is deep.
 */
export function replayExpansion(
  root: Node,
  path: PathLink | undefined,
  counter: ExpansionCounter,
  targets: ReadonlyMap<Node, Node>,
  expansions: ReadonlyMap<Node, Expansion>,
): never {
  const stack: [Node | null, PathLink | undefined][] = [[root, path]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, at] = next;
    if (node === null) continue;
    counter.countNode(at);
    if (isAlias(node)) {
      counter.countAlias(at);
      const target = targets.get(node);
      const expansion = target === undefined ? undefined : expansions.get(target);
      if (target === undefined || expansion === undefined) continue;
      if (counter.fits(expansion)) counter.add(expansion);
      else stack.push([target, at]);
    } else if (isSeq(node)) {
      const items = node.items as (Node | null)[];
      for (let index = items.length - 1; index >= 0; index--)
        stack.push([items[index] ?? null, { parent: at, token: index }]);
    } else if (isMap(node)) {
      // As the converter does: a key that is not a string, or is repeated, has its value skipped.
      const kept: [Node | null, PathLink][] = [];
      const keys = new Set<string>();
      for (const pair of node.items as Pair[]) {
        const keyNode = pair.key as Node | null;
        const key = isScalar(keyNode) ? keyNode.value : undefined;
        if (typeof key !== "string" || keys.has(key)) continue;
        keys.add(key);
        kept.push([pair.value as Node | null, { parent: at, token: key }]);
      }
      for (let index = kept.length - 1; index >= 0; index--)
        stack.push(kept[index] as [Node | null, PathLink]);
    }
  }
  throw new Error("internal: an expansion counted past a limit but passed none when walked again");
}
