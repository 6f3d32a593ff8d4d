import fc from "fast-check";
import {
  anyJsonValue,
  anyString,
  type Drawn,
  deepJson,
  drawn,
  garbageBytes,
  PROTOTYPE_KEYS,
} from "./arbitraries.js";

const id = fc.oneof(fc.integer(), fc.string({ maxLength: 12 }), anyJsonValue);
const method = fc.constantFrom(
  "tools/call",
  "tools/call",
  "tools/list",
  "ping",
  "initialize",
  "notifications/cancelled",
  "resources/list",
  ...PROTOTYPE_KEYS,
);
const toolName = fc.oneof(
  fc.constantFrom("echo", "result_null", "missing", ...PROTOTYPE_KEYS),
  anyString,
  anyJsonValue,
);
const args = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 6 })), anyJsonValue, {
    maxKeys: 3,
  }),
  anyJsonValue,
);

/** A JSON-RPC-shaped frame with any field of any type. */
const shaped = fc
  .record(
    {
      jsonrpc: fc.oneof(fc.constant("2.0"), anyJsonValue),
      id,
      method,
      params: fc.record({ name: toolName, arguments: args }, { requiredKeys: [] }),
    },
    { requiredKeys: ["method"] },
  )
  .map((frame) => JSON.stringify(frame));

/** A tools/call frame with a hostile nesting in its arguments, params, `_meta` or id. */
const deep = fc
  .tuple(deepJson, fc.constantFrom("arguments", "params", "meta", "id"), fc.integer())
  .map(([{ family, input: nested }, where, n]) => {
    const frame = (text: string) => ({ family, input: text });
    if (where === "arguments")
      return frame(
        `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"echo","arguments":{"a":${nested}}}}`,
      );
    if (where === "params")
      return frame(`{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":${nested}}`);
    if (where === "meta")
      return frame(
        `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"echo","_meta":{"x":${nested}}}}`,
      );
    return frame(`{"jsonrpc":"2.0","id":${nested},"method":"ping"}`);
  });

/** A frame cut short, or with prototype keys at the top. */
const truncated = shaped.chain((text) => fc.nat({ max: text.length }).map((at) => text.slice(0, at)));
const prototype = fc
  .constantFrom(...PROTOTYPE_KEYS)
  .map(
    (key) =>
      `{"${key}":{"method":"tools/call"},"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","${key}":1,"arguments":{"${key}":{"${key}":1}}}}`,
  );
/** A tools/call whose argument is a string of 1 to 4 MB (under the SDK's 10 MB message bound, which ends the gateway). */
const huge = fc
  .tuple(fc.constantFrom("x", "é", "\\u0000"), fc.integer({ min: 1, max: 4 }))
  .map(
    ([unit, mb]) =>
      `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"a":"${unit.repeat((mb * 1_000_000) / unit.length)}"}}}`,
  );

/**
 * A request whose params the SDK alone would answer −32603 or not at all: `params` that is not an
 * object, a non-object `_meta`, a `progressToken` that is neither string nor integer, a `tools/call`
 * with a non-string name or non-object arguments.
 */
const malformedParams = fc
  .tuple(
    fc.oneof(fc.integer(), fc.string({ maxLength: 8 })),
    fc.constantFrom("tools/call", "tools/call", "tools/list", "ping", "initialize"),
    fc.oneof(
      fc.constantFrom(null, "x", 5, true, [], [1]),
      anyJsonValue.map((meta) => ({ name: "echo", _meta: meta })),
      fc.oneof(fc.constant({}), fc.constant([]), fc.double(), fc.boolean()).map((token) => ({
        name: "echo",
        _meta: { progressToken: token },
      })),
      anyJsonValue.map((name) => ({ name, arguments: {} })),
      anyJsonValue.map((args) => ({ name: "echo", arguments: args })),
    ),
  )
  .map(([n, method, params]) => JSON.stringify({ jsonrpc: "2.0", id: n, method, params }));

/** Every family the gateway fuzz draws; a run of CI's size must have drawn each of them. */
export const FAMILIES = [
  "shaped",
  "deep",
  "deep 100000",
  "truncated",
  "prototype keys",
  "garbage",
  "string",
  "huge string",
  "malformed params",
];

/** One frame of the gateway fuzz: a JSON-RPC text, whole or not, and its family. */
export const frame: fc.Arbitrary<Drawn<string>> = fc.oneof(
  { weight: 60, arbitrary: drawn("shaped", shaped) },
  { weight: 20, arbitrary: deep },
  { weight: 20, arbitrary: drawn("truncated", truncated) },
  { weight: 10, arbitrary: drawn("prototype keys", prototype) },
  { weight: 20, arbitrary: drawn("garbage", garbageBytes) },
  { weight: 10, arbitrary: drawn("string", anyString) },
  { weight: 1, arbitrary: drawn("huge string", huge) },
  { weight: 20, arbitrary: drawn("malformed params", malformedParams) },
);

/**
 * Whether the gateway owes `text` an answer: every line but a blank one, a notification (a method and
 * no id) or a response (a result or error and no method), however malformed those are.
 */
export function expectsAnswer(text: string): boolean {
  if (text.trim() === "") return false;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return true;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return true;
  const has = (key: string) => Object.hasOwn(value, key);
  if (typeof (value as { method?: unknown }).method === "string" && !has("id")) return false;
  return has("method") || !(has("result") || has("error"));
}
