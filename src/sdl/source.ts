import { isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { DiagnosticCode } from "./codes.js";
import type { Anchor, Finding, SourceLocator } from "./diagnostics.js";
import { joinPointer } from "./diagnostics.js";

/** Work limits for one YAML source. */
export interface SourceLimits {
  /** Largest accepted input, in UTF-8 bytes (default 1 MB). */
  readonly maxBytes: number;
  /** Most alias dereferences, counting nested ones during expansion (default 10 000). */
  readonly maxAliases: number;
  /** Most nodes after alias expansion (default 1 000 000). */
  readonly maxNodes: number;
}

/** The limits used when a caller gives none. */
export const DEFAULT_SOURCE_LIMITS: SourceLimits = {
  maxBytes: 1_000_000,
  maxAliases: 10_000,
  maxNodes: 1_000_000,
};

/** A YAML document converted to plain values, with where each value came from. */
export interface ParsedSource {
  /** The plain value; `undefined` when the text could not be read as YAML at all. */
  readonly value: unknown;
  readonly locator: SourceLocator;
  readonly findings: readonly Finding[];
}

class OffsetLocator implements SourceLocator {
  readonly valueOffsets = new Map<string, number>();
  readonly keyOffsets = new Map<string, number>();

  constructor(private readonly lines: LineCounter) {}

  locate(pointer: string, anchor: Anchor): { line: number; column: number } {
    return this.position(this.offsetFor(pointer, anchor));
  }

  position(offset: number): { line: number; column: number } {
    const pos = this.lines.linePos(offset);
    return { line: pos.line, column: pos.col };
  }

  private offsetFor(pointer: string, anchor: Anchor): number {
    const first = anchor === "key" ? this.keyOffsets.get(pointer) : this.valueOffsets.get(pointer);
    if (first !== undefined) return first;
    let candidate = pointer;
    while (candidate !== "") {
      candidate = candidate.slice(0, candidate.lastIndexOf("/"));
      const found = this.valueOffsets.get(candidate) ?? this.keyOffsets.get(candidate);
      if (found !== undefined) return found;
    }
    return 0;
  }
}

class LimitExceeded extends Error {}

class Converter {
  private aliases = 0;
  private nodes = 0;
  private expanding = 0;
  private readonly anchors = new Map<string, Node>();
  private readonly active = new Set<Node>();
  readonly findings: Finding[] = [];

  constructor(
    private readonly locator: OffsetLocator,
    private readonly limits: SourceLimits,
  ) {}

  convert(node: Node | null | undefined, pointer: string): unknown {
    if (node === null || node === undefined) return null;
    if (++this.nodes > this.limits.maxNodes) {
      this.fail(pointer, `the document expands to more than ${this.limits.maxNodes} nodes`);
    }
    if (this.expanding === 0) {
      this.locator.valueOffsets.set(pointer, node.range?.[0] ?? 0);
      if (node.anchor) this.anchors.set(node.anchor, node);
    }
    if (node.tag !== undefined && !isAlias(node)) {
      this.findings.push({
        code: DiagnosticCode.explicitTag,
        message: `explicit YAML tag ${node.tag} is not valid SDL authoring syntax`,
        path: pointer,
      });
    }
    if (isAlias(node)) return this.dereference(node.source, pointer);
    if (isScalar(node)) return node.value;
    if (isSeq(node))
      return node.items.map((item, index) => this.convert(item as Node, joinPointer(pointer, index)));
    if (isMap(node)) return this.convertMap(node.items, pointer);
    return null;
  }

  private dereference(source: string, pointer: string): unknown {
    if (++this.aliases > this.limits.maxAliases) {
      this.fail(pointer, `the document dereferences more than ${this.limits.maxAliases} aliases`);
    }
    const target = this.anchors.get(source);
    if (target === undefined) {
      this.findings.push({
        code: DiagnosticCode.parse,
        message: `alias *${source} has no anchor`,
        path: pointer,
      });
      return null;
    }
    if (this.active.has(target)) {
      this.findings.push({
        code: DiagnosticCode.aliasCycle,
        message: `alias *${source} refers to a node that contains it`,
        path: pointer,
      });
      return null;
    }
    this.active.add(target);
    this.expanding++;
    try {
      return this.convert(target, pointer);
    } finally {
      this.expanding--;
      this.active.delete(target);
    }
  }

  private convertMap(
    items: readonly { key: unknown; value: unknown }[],
    pointer: string,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null);
    const seen = new Set<string>();
    for (const pair of items) {
      const keyNode = pair.key as Node | null;
      const key = isScalar(keyNode) ? keyNode.value : undefined;
      const keyOffset = keyNode?.range?.[0] ?? 0;
      if (typeof key !== "string") {
        this.findings.push({
          code: DiagnosticCode.mappingKeyType,
          message: `mapping key ${describeKey(keyNode)} must be a plain string`,
          path: joinPointer(pointer, String(key ?? "")),
          at: this.at(keyOffset),
        });
        continue;
      }
      const child = joinPointer(pointer, key);
      if (seen.has(key)) {
        this.findings.push({
          code: DiagnosticCode.mappingKeyConflict,
          message: `duplicate mapping key '${key}'`,
          path: child,
          at: this.at(keyOffset),
        });
        continue;
      }
      seen.add(key);
      if (this.expanding === 0) this.locator.keyOffsets.set(child, keyOffset);
      out[key] = this.convert(pair.value as Node | null, child);
    }
    return out;
  }

  private at(offset: number): { line: number; column: number } {
    return this.locator.position(offset);
  }

  private fail(pointer: string, message: string): never {
    this.findings.push({ code: DiagnosticCode.sourceLimit, message, path: pointer });
    throw new LimitExceeded(message);
  }
}

function describeKey(node: Node | null): string {
  if (node === null) return "(empty)";
  if (isScalar(node)) return JSON.stringify(node.value) ?? String(node.value);
  return isMap(node) ? "(a mapping)" : isSeq(node) ? "(a sequence)" : "(an alias)";
}

/** Parses YAML text into plain values and positions; never throws on bad input. */
export function parseSource(text: string, limits: SourceLimits = DEFAULT_SOURCE_LIMITS): ParsedSource {
  const lines = new LineCounter();
  const locator = new OffsetLocator(lines);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > limits.maxBytes) {
    const message = `the source is ${bytes} bytes; the limit is ${limits.maxBytes} bytes`;
    return { value: undefined, locator, findings: [{ code: DiagnosticCode.sourceLimit, message, path: "" }] };
  }
  if (text.trim() === "") {
    return {
      value: undefined,
      locator,
      findings: [{ code: DiagnosticCode.parse, message: "the source is empty", path: "" }],
    };
  }
  // Duplicate keys are reported by the converter, which knows their JSON pointer.
  const doc = parseDocument(text, {
    lineCounter: lines,
    uniqueKeys: false,
    prettyErrors: false,
    merge: false,
  });
  if (doc.errors.length > 0) {
    const findings = doc.errors.map(
      (error): Finding => ({
        code: DiagnosticCode.parse,
        message: error.message,
        path: "",
        at: locator.position(error.pos[0]),
      }),
    );
    return { value: undefined, locator, findings };
  }
  const converter = new Converter(locator, limits);
  try {
    const value = converter.convert(doc.contents as Node | null, "");
    return { value, locator, findings: converter.findings };
  } catch (error) {
    if (error instanceof LimitExceeded) return { value: undefined, locator, findings: converter.findings };
    throw error;
  }
}
