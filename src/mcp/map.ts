import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Scalar, visit, type YAMLMap } from "yaml";
import {
  capPerCode,
  InputFileRefusal,
  MAX_YAML_DEPTH,
  MAX_YAML_ERRORS,
  readInputFile,
  withoutStackTraces,
  yamlDepthExceeded,
  yamlTokensExceeded,
} from "../input/index.js";
import { isAddress } from "../records/index.js";
import { type ArgumentRule, argumentCompiler } from "./argument-rules.js";

/** Fixed codes for everything that can be wrong with a gateway map file. */
export const ToolMapDiagnosticCode = {
  /** The file could not be read, or is larger than the limit. */
  unreadable: "mcp-map.unreadable",
  /** The path names a FIFO, device, directory or socket, which is never read. */
  not_regular: "mcp-map.not-regular",
  /** The text is not one well-formed YAML document (syntax, duplicate keys, aliases, too deep or too large). */
  yaml_invalid: "mcp-map.yaml-invalid",
  /** The document, `tools` or a tool entry is not a mapping. */
  not_a_mapping: "mcp-map.not-a-mapping",
  /** A key the closed shape does not allow. */
  unknown_key: "mcp-map.unknown-key",
  /** `tools` is missing or maps no tool. */
  no_tools: "mcp-map.no-tools",
  /** A tool name is not an MCP tool name (a string of 1 to 128 of `A-Z a-z 0-9 _ - .`; `~` or `1` are not strings). */
  tool_name_invalid: "mcp-map.tool-name-invalid",
  /** A required field of a tool entry is absent. */
  field_missing: "mcp-map.field-missing",
  /** A field has the wrong type, is not an address, or a list is empty, too long or repeats itself. */
  field_invalid: "mcp-map.field-invalid",
  /** `arguments` is not a JSON Schema (draft 2020-12) the validator accepts; the position is inside it. */
  arguments_invalid: "mcp-map.arguments-invalid",
  /**
   * `approval` is not `required` or a mapping of `when` (a JSON Schema) and `timeout_seconds` (a whole
   * number of seconds from 1 to 86400); the position is inside it.
   */
  approval_invalid: "mcp-map.approval-invalid",
} as const;
/** A gateway map diagnostic code. */
export type ToolMapDiagnosticCode = (typeof ToolMapDiagnosticCode)[keyof typeof ToolMapDiagnosticCode];

/** One problem in a map file, with where it is. */
export interface ToolMapDiagnostic {
  readonly code: ToolMapDiagnosticCode;
  /** Dotted path inside the document, e.g. `tools.probe_login.targets`. */
  readonly path: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** What the gateway claims for one MCP tool: the governed action its calls are admitted as. */
export interface ToolMapEntry {
  readonly toolAffordanceAddress: string;
  readonly actionContractAddress: string;
  readonly observationBoundaryAddress: string;
  readonly targetAddresses: readonly string[];
  /** Put on `complete`; empty when the map names none. */
  readonly evidenceRefs: readonly string[];
  /** The entry's `arguments:` schema, compiled once at load; absent when the entry has none. */
  readonly argumentRule?: ArgumentRule;
  /** The entry's `approval:`: calls are held for an operator's decision; absent when it has none. */
  readonly approval?: ToolApproval;
}

/** A map entry's approval rule (docs/guide/approvals.md). */
export interface ToolApproval {
  /** Holds only calls whose arguments match this schema (`when:`); every call when absent. */
  readonly when?: ArgumentRule;
  /** Seconds a held call waits for a decision before it expires; default 300. */
  readonly timeoutSeconds: number;
}

/** How long a held call waits when the map does not say. */
export const DEFAULT_APPROVAL_SECONDS = 300;
const MAX_APPROVAL_SECONDS = 86_400;
const APPROVAL_KEYS = ["when", "timeout_seconds"];

/** A validated map: MCP tool name → governed action. */
export interface ToolMap {
  readonly tools: ReadonlyMap<string, ToolMapEntry>;
}

/** The result of reading a map: the map when there is no diagnostic. */
export type ToolMapResult =
  | { readonly ok: true; readonly map: ToolMap }
  | { readonly ok: false; readonly diagnostics: readonly ToolMapDiagnostic[] };

const MAX_MAP_BYTES = 256 * 1024;
/** A map of 100 tools with 64 targets each has under 30 000 YAML tokens. */
const MAX_MAP_TOKENS = 50_000;
const Invalid = ToolMapDiagnosticCode.yaml_invalid;
const MAX_ID_LENGTH = 256;
const MAX_LIST = 64;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const ENTRY_KEYS = [
  "tool_affordance",
  "action_contract",
  "observation_boundary",
  "targets",
  "evidence_refs",
  "arguments",
  "approval",
];
const ADDRESS_FIELDS = [
  ["tool_affordance", "toolAffordanceAddress"],
  ["action_contract", "actionContractAddress"],
  ["observation_boundary", "observationBoundaryAddress"],
] as const;

function isValidAddress(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_ID_LENGTH && isAddress(value);
}

type Field = { value: unknown; offset: number; node: unknown };

/** The offset of the node at JSON pointer `pointer` below `node`, else `fallback`. */
function offsetAt(node: unknown, pointer: string, fallback: number): number {
  let at: unknown = node;
  let offset = fallback;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    const next = isMap(at) ? at.get(key, true) : isSeq(at) ? at.get(Number(key), true) : undefined;
    if (next === undefined || next === null) break;
    at = next;
    offset = (next as { range?: [number, number, number] }).range?.[0] ?? offset;
  }
  return offset;
}

class MapReader {
  readonly diagnostics: ToolMapDiagnostic[] = [];
  readonly #lines: LineCounter;
  // Created on the first `arguments:`, so a map without rules never builds a validator.
  #compile: ReturnType<typeof argumentCompiler> | undefined;

  constructor(lines: LineCounter) {
    this.#lines = lines;
  }

  report(code: ToolMapDiagnosticCode, path: string, offset: number, message: string): void {
    const { line, col } = this.#lines.linePos(offset);
    this.diagnostics.push({ code, path, line, column: col, message });
  }

  entry(name: string, node: unknown, offset: number): ToolMapEntry | undefined {
    const path = `tools.${name}`;
    if (!isMap(node))
      return void this.report(
        ToolMapDiagnosticCode.not_a_mapping,
        path,
        offset,
        "a tool entry must be a mapping",
      );
    const before = this.diagnostics.length;
    const fields = new Map<string, Field>();
    for (const pair of (node as YAMLMap).items) {
      const key = isScalar(pair.key) ? String((pair.key as Scalar).value) : "";
      const keyOffset = (pair.key as Scalar | null)?.range?.[0] ?? offset;
      if (!ENTRY_KEYS.includes(key)) {
        this.report(
          ToolMapDiagnosticCode.unknown_key,
          `${path}.${key}`,
          keyOffset,
          `unknown key '${key}'; allowed: ${ENTRY_KEYS.join(", ")}`,
        );
        continue;
      }
      const valueNode = pair.value as { range?: [number, number, number]; toJSON?: () => unknown } | null;
      fields.set(key, {
        value: (pair.value as { toJSON(): unknown } | null)?.toJSON() ?? null,
        offset: valueNode?.range?.[0] ?? keyOffset,
        node: pair.value,
      });
    }
    const out: Record<string, unknown> = {};
    for (const [key, property] of ADDRESS_FIELDS) {
      const field = fields.get(key);
      if (!field)
        this.report(ToolMapDiagnosticCode.field_missing, `${path}.${key}`, offset, `'${key}' is required`);
      else if (!isValidAddress(field.value))
        this.report(
          ToolMapDiagnosticCode.field_invalid,
          `${path}.${key}`,
          field.offset,
          `'${key}' must be a compiled address`,
        );
      else out[property] = field.value;
    }
    out.targetAddresses = this.addressList(path, "targets", fields.get("targets"), offset, true);
    out.evidenceRefs = this.addressList(path, "evidence_refs", fields.get("evidence_refs"), offset, false);
    const rules = fields.get("arguments");
    if (rules) {
      this.#compile ??= argumentCompiler();
      const rule = this.#compile(rules.value);
      if (typeof rule === "function") out.argumentRule = rule;
      else
        this.report(
          ToolMapDiagnosticCode.arguments_invalid,
          `${path}.arguments`,
          offsetAt(rules.node, rule.pointer, rules.offset),
          rule.message,
        );
    }
    const approval = fields.get("approval");
    if (approval) {
      const rule = this.approval(path, approval);
      if (rule) out.approval = rule;
    }
    return this.diagnostics.length === before ? (out as unknown as ToolMapEntry) : undefined;
  }

  /** `approval: required`, or `{when: <JSON Schema>, timeout_seconds: N}` with either key optional. */
  approval(path: string, field: Field): ToolApproval | undefined {
    const at = `${path}.approval`;
    const bad = (where: string, offset: number, message: string) =>
      void this.report(ToolMapDiagnosticCode.approval_invalid, where, offset, message);
    if (field.value === "required") return { timeoutSeconds: DEFAULT_APPROVAL_SECONDS };
    if (!isMap(field.node))
      return bad(
        at,
        field.offset,
        "'approval' must be 'required' or a mapping of 'when' and 'timeout_seconds'",
      );
    let when: ArgumentRule | undefined;
    let timeoutSeconds = DEFAULT_APPROVAL_SECONDS;
    let ok = true;
    for (const pair of (field.node as YAMLMap).items) {
      const key = isScalar(pair.key) ? String((pair.key as Scalar).value) : "";
      const keyOffset = (pair.key as Scalar | null)?.range?.[0] ?? field.offset;
      const node = pair.value as { range?: [number, number, number]; toJSON?: () => unknown } | null;
      const offset = node?.range?.[0] ?? keyOffset;
      const value = node?.toJSON?.() ?? null;
      if (key === "timeout_seconds") {
        if (
          typeof value === "number" &&
          Number.isSafeInteger(value) &&
          value >= 1 &&
          value <= MAX_APPROVAL_SECONDS
        )
          timeoutSeconds = value;
        else {
          ok = false;
          bad(
            `${at}.timeout_seconds`,
            offset,
            `'timeout_seconds' must be a whole number from 1 to ${MAX_APPROVAL_SECONDS}`,
          );
        }
      } else if (key === "when") {
        this.#compile ??= argumentCompiler();
        const rule = this.#compile(value);
        if (typeof rule === "function") when = rule;
        else {
          ok = false;
          bad(
            `${at}.when`,
            offsetAt(pair.value, rule.pointer, offset),
            rule.message.replace("'arguments'", "'when'"),
          );
        }
      } else {
        ok = false;
        bad(`${at}.${key}`, keyOffset, `unknown key '${key}'; allowed: ${APPROVAL_KEYS.join(", ")}`);
      }
    }
    if (!ok) return undefined;
    return when === undefined ? { timeoutSeconds } : { when, timeoutSeconds };
  }

  addressList(
    path: string,
    key: string,
    field: Field | undefined,
    offset: number,
    required: boolean,
  ): string[] {
    if (!field) {
      if (required)
        this.report(ToolMapDiagnosticCode.field_missing, `${path}.${key}`, offset, `'${key}' is required`);
      return [];
    }
    const list = field.value;
    const ok =
      Array.isArray(list) &&
      list.length >= (required ? 1 : 0) &&
      list.length <= MAX_LIST &&
      list.every(isValidAddress) &&
      new Set(list).size === list.length;
    if (!ok) {
      const size = required ? `1 to ${MAX_LIST}` : `at most ${MAX_LIST}`;
      this.report(
        ToolMapDiagnosticCode.field_invalid,
        `${path}.${key}`,
        field.offset,
        `'${key}' must be a list of ${size} distinct addresses`,
      );
      return [];
    }
    return list as string[];
  }
}

/** Parses and validates a gateway map from YAML text; the shape is closed. */
export function parseToolMap(text: string): ToolMapResult {
  const refused = (message: string): ToolMapResult => ({
    ok: false,
    diagnostics: [{ code: ToolMapDiagnosticCode.yaml_invalid, path: "", line: 1, column: 1, message }],
  });
  if (text.length > MAX_MAP_BYTES) return refused(`the map is larger than ${MAX_MAP_BYTES} bytes`);
  if (text.trim() === "") return refused("the map is empty");
  // The YAML parser recurses once per level: refuse hostile nesting before it runs.
  if (yamlDepthExceeded(text) !== undefined)
    return refused(`the map is nested deeper than ${MAX_YAML_DEPTH} levels`);
  // The parser's work grows with its tokens, and far faster with its errors: bound them before it runs.
  if (yamlTokensExceeded(text, MAX_MAP_TOKENS) !== undefined)
    return refused(`the map has more than ${MAX_MAP_TOKENS} YAML tokens`);
  const lines = new LineCounter();
  const document = withoutStackTraces(() =>
    parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false }),
  );
  const reader = new MapReader(lines);
  for (const error of document.errors.slice(0, MAX_YAML_ERRORS))
    reader.report(Invalid, "", error.pos[0], error.message.split("\n")[0] ?? error.message);
  const more = document.errors.length - MAX_YAML_ERRORS;
  if (more > 0) reader.report(Invalid, "", text.length, `${more} more YAML errors`);
  const yamlErrors = reader.diagnostics.length;
  // Repeated keys are found in one pass here: the library's uniqueKeys check is quadratic in a mapping's size.
  visit(document, {
    Alias: (_key, node) => reader.report(Invalid, "", node.range?.[0] ?? 0, "aliases are not allowed"),
    Map: (_key, node) => {
      const seen = new Set<unknown>();
      for (const { key } of node.items) {
        if (!isScalar(key)) continue;
        if (seen.has(key.value)) reader.report(Invalid, "", key.range?.[0] ?? 0, "Map keys must be unique");
        seen.add(key.value);
      }
    },
  });
  if (reader.diagnostics.length > 0)
    return { ok: false, diagnostics: capPerCode(reader.diagnostics, yamlErrors) };
  const root = document.contents;
  if (!isMap(root)) {
    reader.report(
      ToolMapDiagnosticCode.not_a_mapping,
      "",
      0,
      "the map must be a mapping with one key, 'tools'",
    );
    return { ok: false, diagnostics: reader.diagnostics };
  }
  let toolsNode: unknown;
  let toolsOffset = 0;
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : "";
    const offset = (pair.key as Scalar | null)?.range?.[0] ?? 0;
    if (key === "tools") [toolsNode, toolsOffset] = [pair.value, offset];
    else
      reader.report(
        ToolMapDiagnosticCode.unknown_key,
        key,
        offset,
        `unknown key '${key}'; the map has one key, 'tools'`,
      );
  }
  const tools = new Map<string, ToolMapEntry>();
  if (toolsNode !== undefined && toolsNode !== null && !isMap(toolsNode)) {
    reader.report(
      ToolMapDiagnosticCode.not_a_mapping,
      "tools",
      toolsOffset,
      "'tools' must map MCP tool names to entries",
    );
  } else if (!isMap(toolsNode) || toolsNode.items.length === 0) {
    reader.report(
      ToolMapDiagnosticCode.no_tools,
      "tools",
      toolsOffset,
      "'tools' must map at least one MCP tool",
    );
  } else {
    for (const pair of toolsNode.items) {
      const value = isScalar(pair.key) ? pair.key.value : undefined;
      const name = isScalar(pair.key) ? String(value) : "";
      const offset = (pair.key as Scalar | null)?.range?.[0] ?? toolsOffset;
      // `~:` would become a tool named "null", and `1:` would collapse with `"1":`: names are strings.
      if (typeof value !== "string" || !TOOL_NAME.test(name)) {
        reader.report(
          ToolMapDiagnosticCode.tool_name_invalid,
          `tools.${name}`,
          offset,
          typeof value === "string"
            ? `'${name}' is not an MCP tool name`
            : `the key ${name} is not a string; quote a tool name that looks like a number or null`,
        );
        continue;
      }
      const entry = reader.entry(name, pair.value, offset);
      if (entry) tools.set(name, entry);
    }
  }
  return reader.diagnostics.length > 0
    ? { ok: false, diagnostics: capPerCode(reader.diagnostics) }
    : { ok: true, map: { tools } };
}

/** Reads and validates a gateway map file. */
export function loadToolMap(path: string): ToolMapResult {
  const read = readInputFile(path, MAX_MAP_BYTES);
  if (read.ok) return parseToolMap(read.text);
  const code =
    read.refusal === InputFileRefusal.not_regular
      ? ToolMapDiagnosticCode.not_regular
      : ToolMapDiagnosticCode.unreadable;
  const message =
    read.refusal === InputFileRefusal.unreadable ? read.message : `cannot read ${path}: ${read.message}`;
  return { ok: false, diagnostics: [{ code, path: "", line: 1, column: 1, message }] };
}

/** One diagnostic as a `file:line:column: code path: message` line. */
export function formatToolMapDiagnostic(file: string, d: ToolMapDiagnostic): string {
  return `${file}:${d.line}:${d.column}: ${d.code}${d.path ? ` ${d.path}` : ""}: ${d.message}`;
}
