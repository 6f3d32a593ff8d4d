/** The deepest nesting a YAML source may have; the `yaml` library recurses once per level. */
export const MAX_YAML_DEPTH = 100;

const SCALAR_START = new Set([" ", "\t", "\n", "\r", "[", "{", ",", ":", "-", "?"]);
const BLOCK_SCALAR = /[|>][-+0-9]*[ \t]*(#.*)?$/;

/**
 * The offset where YAML text first nests deeper than `limit` levels, or undefined. It is an upper bound
 * computed in one pass without recursion (block indentation, `- `/`? ` indicators and flow brackets), so
 * it runs before any parser that would overflow the stack on hostile nesting.
 */
export function yamlDepthExceeded(text: string, limit: number = MAX_YAML_DEPTH): number | undefined {
  const indents: number[] = [];
  let flow = 0;
  let base = 0;
  let quote = "";
  let scalarParent = -1;
  let i = 0;
  while (i < text.length) {
    // At a line start: block structure, unless inside a flow collection or a quoted scalar.
    if (quote === "" && flow === 0) {
      let indent = 0;
      while (text[i + indent] === " ") indent += 1;
      const first = text[i + indent];
      const blank = first === undefined || first === "\n" || first === "\r" || first === "#";
      if (scalarParent >= 0 && (blank || indent > scalarParent)) {
        i = skipLine(text, i);
        continue;
      }
      scalarParent = -1;
      if (blank) {
        i = skipLine(text, i);
        continue;
      }
      while (indents.length > 0 && (indents.at(-1) ?? 0) >= indent) indents.pop();
      indents.push(indent);
      i += indent;
      let inline = 0;
      while ((text[i] === "-" || text[i] === "?") && (text[i + 1] === " " || text[i + 1] === "\n")) {
        inline += 1;
        i += 1;
        while (text[i] === " ") i += 1;
      }
      base = indents.length + inline;
      if (base > limit) return i;
      const end = text.indexOf("\n", i);
      const line = text.slice(i, end < 0 ? text.length : end);
      if (BLOCK_SCALAR.test(line) && !line.startsWith("#")) scalarParent = indent;
    }
    // The rest of the line: quotes, comments and flow brackets.
    for (; i < text.length; i += 1) {
      const c = text[i];
      if (quote === '"') {
        if (c === "\\") i += 1;
        else if (c === '"') quote = "";
        continue;
      }
      if (quote === "'") {
        if (c === "'" && text[i + 1] === "'") i += 1;
        else if (c === "'") quote = "";
        continue;
      }
      if (c === "\n") break;
      const previous = i === 0 ? "\n" : (text[i - 1] ?? "\n");
      if (c === "#" && (previous === " " || previous === "\t" || previous === "\n")) {
        i = skipLine(text, i) - 1;
        break;
      }
      const atScalarStart = flow > 0 || SCALAR_START.has(previous);
      if ((c === '"' || c === "'") && atScalarStart) quote = c;
      else if ((c === "[" || c === "{") && atScalarStart) {
        flow += 1;
        if (base + flow > limit) return i;
      } else if ((c === "]" || c === "}") && flow > 0) flow -= 1;
    }
    i += 1;
  }
  return undefined;
}

function skipLine(text: string, from: number): number {
  const end = text.indexOf("\n", from);
  return end < 0 ? text.length : end + 1;
}
