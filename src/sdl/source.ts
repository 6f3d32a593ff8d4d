import { isAlias, isMap, isScalar, isSeq, LineCounter, type Node, type Pair, parseDocument } from "yaml";
import {
  MAX_YAML_DEPTH,
  MAX_YAML_ERRORS,
  MAX_YAML_TOKENS,
  withoutStackTraces,
  yamlDepthExceeded,
  yamlTokensExceeded,
} from "../input/index.js";
import { DiagnosticCode } from "./codes.js";
import type { Finding, SourceLocator } from "./diagnostics.js";
import { joinPointer } from "./diagnostics.js";
import { type Expansion, type ExpansionCounter, type PathLink, replayExpansion } from "./expansion.js";
import { SyntaxTreeLocator } from "./locator.js";

/** Work limits for one YAML source. */
export interface SourceLimits {
  /** Largest accepted input, in UTF-8 bytes (default 1 MB). */
  readonly maxBytes: number;
  /** Most alias dereferences, counting nested ones during expansion (default 10 000). */
  readonly maxAliases: number;
  /** Most nodes after alias expansion (default 1 000 000). */
  readonly maxNodes: number;
  /** Most YAML lexer tokens, checked before parsing (default 100 000, about 18 times the largest example). */
  readonly maxTokens: number;
}

/** The limits used when a caller gives none. */
export const DEFAULT_SOURCE_LIMITS: SourceLimits = {
  maxBytes: 1_000_000,
  maxAliases: 10_000,
  maxNodes: 1_000_000,
  maxTokens: MAX_YAML_TOKENS,
};

/** A YAML document converted to plain values, with where each value came from. */
export interface ParsedSource {
  /** The plain value; `undefined` when the text could not be read as YAML at all. */
  readonly value: unknown;
  readonly locator: SourceLocator;
  readonly findings: readonly Finding[];
}

function pointerOf(link: PathLink | undefined): string {
  const tokens: (string | number)[] = [];
  for (let at = link; at !== undefined; at = at.parent) tokens.push(at.token);
  return joinPointer("", ...tokens.reverse());
}

class LimitExceeded extends Error {}

/**
 * Converts the syntax tree once: an anchored node's value is kept, and each alias to it reuses that value
 * and adds the counts its expansion would cost, so the limits mean what they did (expanded nodes, nested
 * dereferences) while the work stays linear in the file. Only when a limit would be passed is the expansion
 * walked again, with those counts, to name the exact place where it is passed.
 */
class Converter implements ExpansionCounter {
  private aliases = 0;
  private nodes = 0;
  private readonly anchors = new Map<string, Node>();
  /** Anchored nodes being converted: an alias to one of them is inside it, a cycle. */
  private readonly converting = new Set<Node>();
  private readonly expansions = new Map<Node, Expansion>();
  /** Each alias that resolved, to its anchored node. */
  private readonly targets = new Map<Node, Node>();
  readonly findings: Finding[] = [];

  constructor(
    private readonly locator: SyntaxTreeLocator,
    private readonly limits: SourceLimits,
  ) {}

  convert(node: Node | null | undefined, path: PathLink | undefined): unknown {
    if (node === null || node === undefined) return null;
    this.countNode(path);
    if (isAlias(node)) return this.dereference(node, path);
    const anchored = node.anchor ? { nodes: this.nodes - 1, aliases: this.aliases } : undefined;
    if (node.anchor) {
      this.anchors.set(node.anchor, node);
      this.converting.add(node);
    }
    const value = this.convertValue(node, path);
    if (anchored !== undefined) {
      this.converting.delete(node);
      const counts = { nodes: this.nodes - anchored.nodes, aliases: this.aliases - anchored.aliases };
      this.expansions.set(node, { value, ...counts });
    }
    return value;
  }

  private convertValue(node: Node, path: PathLink | undefined): unknown {
    if (node.tag !== undefined) {
      this.findings.push({
        code: DiagnosticCode.explicitTag,
        message: `explicit YAML tag ${node.tag} is not valid SDL authoring syntax`,
        path: pointerOf(path),
      });
    }
    if (isScalar(node)) return node.value;
    if (isSeq(node)) {
      const items = node.items as (Node | null)[];
      const out = new Array<unknown>(items.length);
      for (let index = 0; index < items.length; index++)
        out[index] = this.convert(items[index], { parent: path, token: index });
      return out;
    }
    if (isMap(node)) return this.convertMap(node.items as Pair[], path);
    return null;
  }

  countNode(path: PathLink | undefined): void {
    if (++this.nodes > this.limits.maxNodes) {
      this.fail(path, `the document expands to more than ${this.limits.maxNodes} nodes`);
    }
  }

  countAlias(path: PathLink | undefined): void {
    if (++this.aliases > this.limits.maxAliases) {
      this.fail(path, `the document dereferences more than ${this.limits.maxAliases} aliases`);
    }
  }

  fits(expansion: Expansion): boolean {
    return (
      this.nodes + expansion.nodes <= this.limits.maxNodes &&
      this.aliases + expansion.aliases <= this.limits.maxAliases
    );
  }

  add(expansion: Expansion): void {
    this.nodes += expansion.nodes;
    this.aliases += expansion.aliases;
  }

  private dereference(alias: Node & { source: string }, path: PathLink | undefined): unknown {
    this.countAlias(path);
    const target = this.anchors.get(alias.source);
    const expansion = target === undefined ? undefined : this.expansions.get(target);
    if (target === undefined || expansion === undefined || this.converting.has(target)) {
      const cycle = target !== undefined;
      this.findings.push({
        code: cycle ? DiagnosticCode.aliasCycle : DiagnosticCode.parse,
        message: cycle
          ? `alias *${alias.source} refers to a node that contains it`
          : `alias *${alias.source} has no anchor`,
        path: pointerOf(path),
      });
      return null;
    }
    if (!this.fits(expansion)) replayExpansion(target, path, this, this.targets, this.expansions);
    this.add(expansion);
    this.targets.set(alias, target);
    return expansion.value;
  }

  private convertMap(items: readonly Pair[], path: PathLink | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null);
    for (const pair of items) {
      const keyNode = pair.key as Node | null;
      const key = isScalar(keyNode) ? keyNode.value : undefined;
      const at = () => this.locator.position(keyNode?.range?.[0] ?? 0);
      if (typeof key !== "string") {
        const message = `mapping key ${describeKey(keyNode)} must be a plain string`;
        const pointer = pointerOf({ parent: path, token: String(key ?? "") });
        this.findings.push({ code: DiagnosticCode.mappingKeyType, message, path: pointer, at: at() });
        continue;
      }
      const child: PathLink = { parent: path, token: key };
      if (Object.hasOwn(out, key)) {
        const message = `duplicate mapping key '${key}'`;
        this.findings.push({
          code: DiagnosticCode.mappingKeyConflict,
          message,
          path: pointerOf(child),
          at: at(),
        });
        continue;
      }
      out[key] = this.convert(pair.value as Node | null, child);
    }
    return out;
  }

  private fail(path: PathLink | undefined, message: string): never {
    this.findings.push({ code: DiagnosticCode.sourceLimit, message, path: pointerOf(path) });
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
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > limits.maxBytes) {
    const message = `the source is ${bytes} bytes; the limit is ${limits.maxBytes} bytes`;
    const locator = new SyntaxTreeLocator(undefined, lines);
    return { value: undefined, locator, findings: [{ code: DiagnosticCode.sourceLimit, message, path: "" }] };
  }
  if (text.trim() === "") {
    const locator = new SyntaxTreeLocator(undefined, lines);
    return {
      value: undefined,
      locator,
      findings: [{ code: DiagnosticCode.parse, message: "the source is empty", path: "" }],
    };
  }
  const tooDeep = yamlDepthExceeded(text);
  if (tooDeep !== undefined) {
    const locator = new SyntaxTreeLocator(undefined, lines);
    lines.addNewLine(0);
    for (let at = text.indexOf("\n"); at >= 0 && at < tooDeep; at = text.indexOf("\n", at + 1))
      lines.addNewLine(at + 1);
    return { value: undefined, locator, findings: [depthFinding(locator.position(tooDeep))] };
  }
  // The parser's work grows with its tokens (and far faster with its errors): bound them first.
  const tooMany = yamlTokensExceeded(text, limits.maxTokens);
  if (tooMany !== undefined) {
    const locator = new SyntaxTreeLocator(undefined, lines);
    const message = `the source has more than ${limits.maxTokens} YAML tokens`;
    return { value: undefined, locator, findings: [{ code: DiagnosticCode.sourceLimit, message, path: "" }] };
  }
  // Duplicate keys are reported by the converter, which knows their JSON pointer.
  const doc = withoutStackTraces(() =>
    parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false, merge: false }),
  );
  const locator = new SyntaxTreeLocator(doc, lines);
  if (doc.errors.length > 0) {
    const findings = doc.errors.slice(0, MAX_YAML_ERRORS).map(
      (error): Finding =>
        // The depth bound above is conservative; should the parser still run out of stack, say so plainly.
        error.message.includes("call stack")
          ? depthFinding(locator.position(error.pos[0]))
          : {
              code: DiagnosticCode.parse,
              message: error.message,
              path: "",
              at: locator.position(error.pos[0]),
            },
    );
    const more = doc.errors.length - MAX_YAML_ERRORS;
    const end = locator.position(text.length);
    if (more > 0)
      findings.push({ code: DiagnosticCode.parse, message: `${more} more YAML errors`, path: "", at: end });
    return { value: undefined, locator, findings };
  }
  const converter = new Converter(locator, limits);
  try {
    const value = converter.convert(doc.contents as Node | null, undefined);
    return { value, locator, findings: converter.findings };
  } catch (error) {
    if (error instanceof LimitExceeded) return { value: undefined, locator, findings: converter.findings };
    throw error;
  }
}

function depthFinding(at: Finding["at"]): Finding {
  const message = `the document is nested deeper than ${MAX_YAML_DEPTH} levels`;
  return { code: DiagnosticCode.parse, message, path: "", ...(at === undefined ? {} : { at }) };
}
