import { createRequire } from "node:module";
import type { Lexer } from "yaml";

// Loaded on first use: a command that reads no YAML (`raes operations`, `--help`) does not pay for the
// library. The `node` export of `yaml` is one CommonJS module, so this is the same instance `import` gives.
const requireHere = createRequire(import.meta.url);
let lexerClass: typeof Lexer | undefined;
function newLexer(): Lexer {
  lexerClass ??= (requireHere("yaml") as { Lexer: typeof Lexer }).Lexer;
  return new lexerClass();
}

/** The lexer's own markers (document start, flow error, scalar start), which take no room in the text. */
const MARKERS = new Set(["\u0002", "\u0018", "\u001f"]);

/**
 * The most lexer tokens a scenario may have. The largest real scenario (a 28 KB v2 example) has about
 * 5 500; every later stage of the `yaml` library costs some microseconds per token, and far more per
 * error (1 MB of `"` is 500 000 empty scalars, each a parse error), so the token count bounds its work.
 */
export const MAX_YAML_TOKENS = 100_000;

/**
 * The offset where YAML text passes `limit` lexer tokens, or undefined. The lexer is linear and is
 * stopped as soon as the budget is spent, so hostile text costs at most `limit` tokens' lexing.
 */
export function yamlTokensExceeded(text: string, limit: number = MAX_YAML_TOKENS): number | undefined {
  let tokens = 0;
  let offset = 0;
  for (const token of newLexer().lex(text)) {
    tokens += 1;
    if (tokens > limit) return offset;
    if (!MARKERS.has(token)) offset += token.length;
  }
  return undefined;
}

/** The most YAML parse errors a loader reports; the rest are counted in one more line. */
export const MAX_YAML_ERRORS = 100;

/**
 * Runs a synchronous YAML parse without capturing stack traces: the `yaml` library makes an Error per
 * parse error, and capturing their stacks was nine tenths of the time hostile text took (100 000
 * errors: 6.9 s with stacks, 0.55 s without). Parse errors are reported by message and position only.
 */
export function withoutStackTraces<T>(parse: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return parse();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
