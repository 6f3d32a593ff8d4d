/** The deepest nesting a JSON document read by raes-ts may have. */
export const MAX_JSON_DEPTH = 64;

/** A JSON document, or why it was refused, with the JSON pointer of the offending place. */
export type StrictJsonResult =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      readonly problem: "syntax" | "duplicate_key" | "too_deep";
      readonly pointer: string;
      readonly message: string;
    };

interface Frame {
  readonly keys: Set<string> | undefined;
  readonly pointer: string;
  index: number;
  key: string | undefined;
}

function escapeToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

function childPointer(frame: Frame): string {
  return `${frame.pointer}/${escapeToken(frame.keys ? (frame.key ?? "") : String(frame.index))}`;
}

/**
 * Parses JSON text, refusing an object with the same key twice (after escapes are decoded) and nesting
 * deeper than `maxDepth`. The structure is walked with an explicit stack, so no input can overflow it.
 */
export function parseStrictJson(text: string, maxDepth: number = MAX_JSON_DEPTH): StrictJsonResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: "syntax", pointer: "", message };
  }
  // The text is valid JSON now, so a token scan only has to follow strings and brackets.
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const frame = stack.at(-1);
      if (frame?.keys && expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        frame.key = key;
        if (frame.keys.has(key)) {
          const pointer = childPointer(frame);
          return { ok: false, problem: "duplicate_key", pointer, message: `duplicate key '${key}'` };
        }
        frame.keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === "{" || c === "[") {
      const parent = stack.at(-1);
      const pointer = parent ? childPointer(parent) : "";
      if (stack.length + 1 > maxDepth) {
        return { ok: false, problem: "too_deep", pointer, message: `nested deeper than ${maxDepth} levels` };
      }
      stack.push({ keys: c === "{" ? new Set() : undefined, pointer, index: 0, key: undefined });
      expectKey = c === "{";
    } else if (c === "}" || c === "]") {
      stack.pop();
      expectKey = false;
    } else if (c === ",") {
      const frame = stack.at(-1);
      if (frame) {
        frame.index += 1;
        expectKey = frame.keys !== undefined;
      }
    }
  }
  return { ok: true, value };
}
