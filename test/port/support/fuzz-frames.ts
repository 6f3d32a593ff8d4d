/**
 * Generated socket frames (one line each) and the protocol's own rule for what each must get:
 * a line over the frame bound is refused `bridge.frame-too-large`; a line that is not a JSON object with
 * a safe integer id is refused `bridge.frame-invalid`; every other line gets exactly one fixed answer.
 */
import fc from "fast-check";
import { REMOTE_METHODS } from "../../../src/port/bridge/remote.js";
import { BridgeLimits, SocketRefusal, type ToolActionPortIdentity } from "../../../src/port/index.js";
import { outcomeFor, requestFor } from "../../helpers/tool-requests.js";
import { expectedId } from "./fuzz-answers.js";

/** One generated line, without its newline, and the family it was drawn from. */
export interface WireFrame {
  readonly family: string;
  readonly bytes: Buffer;
}

/** What a frame must get from the server. */
export type FrameFate =
  | { readonly answer: { readonly id: number; readonly method: unknown } }
  | { readonly refusal: SocketRefusal };

/** The fate of one line, by the protocol's rule (see the file comment). */
export function fateOf(bytes: Buffer): FrameFate {
  if (bytes.length > BridgeLimits.maxFrameBytes) return { refusal: SocketRefusal.frame_too_large };
  let message: unknown;
  try {
    message = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { refusal: SocketRefusal.frame_invalid };
  }
  const id = expectedId(message);
  if (id === undefined) return { refusal: SocketRefusal.frame_invalid };
  return { answer: { id, method: (message as { method?: unknown }).method } };
}

/** Keys that mean something to JavaScript or to the wire encoding, mixed with ordinary ones. */
const PROTO_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "$raes",
];
const keyText = fc
  .oneof(fc.constantFrom(...PROTO_KEYS, "id", "method", "args", "toolCallId"), fc.string({ maxLength: 8 }))
  .map((k) => JSON.stringify(k));

const leafText = fc.oneof(
  fc.constantFrom("null", "true", "false", "-0", "1e400", "1e-400", "0.5", '"undefined"'),
  fc.constantFrom('{"$raes":"undefined"}', '{"$raes":"unrepresentable"}', '{"$raes":1}', '{"$raes":null}'),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.string({ unit: "binary", maxLength: 40 }).map((s) => JSON.stringify(s)),
);

/** JSON texts of any shape, with duplicate and prototype keys written as JSON allows them. */
const { json: jsonText } = fc.letrec<{ json: string }>((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leafText,
    fc.array(tie("json"), { maxLength: 5 }).map((items) => `[${items.join(",")}]`),
    fc
      .array(fc.tuple(keyText, tie("json")), { maxLength: 5 })
      .map((entries) => `{${entries.map(([k, v]) => `${k}:${v}`).join(",")}}`),
  ),
}));

/** Appends members to a JSON object text; a repeated key overrides, as JSON.parse reads it. */
function withMembers(objectText: string, members: ReadonlyArray<readonly [string, string]>): string {
  if (members.length === 0) return objectText;
  return `${objectText.slice(0, -1)},${members.map(([k, v]) => `${k}:${v}`).join(",")}}`;
}

const methodText = fc.oneof(
  { arbitrary: fc.constantFrom(...REMOTE_METHODS).map((m) => JSON.stringify(m)), weight: 6 },
  {
    arbitrary: fc
      .constantFrom("__proto__", "constructor", "toString", "ADMIT", "admit ", "")
      .map((m) => JSON.stringify(m)),
    weight: 1,
  },
  { arbitrary: jsonText, weight: 1 },
);

const idText = fc.oneof(
  { arbitrary: fc.integer({ min: -5, max: 1_000_000 }).map(String), weight: 40 },
  {
    arbitrary: fc.constantFrom(
      "9007199254740991",
      "-9007199254740991",
      "9007199254740992",
      "1.5",
      "1e400",
      "-0",
    ),
    weight: 1,
  },
  { arbitrary: fc.constantFrom("null", '"1"', "true", "[1]", "{}"), weight: 1 },
  { arbitrary: jsonText, weight: 1 },
);

/** Call arguments aimed at the port's rules: valid shapes with some fields replaced, ids it knows. */
function argText(port: ToolActionPortIdentity): fc.Arbitrary<string> {
  const field = fc.oneof(
    keyText,
    fc.constantFrom(...Object.keys(requestFor(port, "x"))).map((k) => JSON.stringify(k)),
  );
  const mutations = fc.array(fc.tuple(field, jsonText), { maxLength: 3 });
  const actionId = fc.integer({ min: 1, max: 20 }).map((n) => `${port.invocationActionInstanceId}:tool=${n}`);
  return fc.oneof(
    { arbitrary: jsonText, weight: 4 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom("a", "b", "c", "d"), mutations)
        .map(([id, m]) => withMembers(JSON.stringify(requestFor(port, id)), m)),
      weight: 4,
    },
    {
      arbitrary: fc
        .tuple(actionId, mutations)
        .map(([id, m]) => withMembers(JSON.stringify(outcomeFor(port, id)), m)),
      weight: 2,
    },
    { arbitrary: actionId.map((id) => JSON.stringify(id)), weight: 3 },
  );
}

function callText(port: ToolActionPortIdentity): fc.Arbitrary<string> {
  const args = fc.oneof(
    { arbitrary: fc.array(argText(port), { maxLength: 3 }).map((a) => `[${a.join(",")}]`), weight: 6 },
    { arbitrary: jsonText, weight: 1 },
  );
  const extras = fc.array(fc.tuple(keyText, jsonText), { maxLength: 2 });
  return fc
    .tuple(idText, methodText, args, extras)
    .map(([id, method, a, more]) => withMembers(`{"id":${id},"method":${method},"args":${a}}`, more));
}

/** A depth that is mostly small and sometimes exactly 100 000. */
const depth = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 40 }), weight: 4 },
  { arbitrary: fc.integer({ min: 41, max: 5_000 }), weight: 2 },
  { arbitrary: fc.integer({ min: 5_001, max: 99_999 }), weight: 1 },
  { arbitrary: fc.constant(100_000), weight: 1 },
);

/** Nesting of arrays or objects, balanced or cut short, placed in the args, beside them, or alone. */
const deepText = fc
  .tuple(
    depth,
    fc.constantFrom(["[", "]"], ['{"a":', "}"], ['{"__proto__":', "}"], ["[0,", "]"]),
    fc.constantFrom("args", "beside", "alone"),
    fc.boolean(),
    fc.integer({ min: 0, max: 1_000 }),
  )
  .map(([d, [open, close], where, balanced, id]) => {
    const nest = `${open.repeat(d)}0${balanced ? close.repeat(d) : ""}`;
    const family = d === 100_000 ? "deep 100000" : "deep";
    if (where === "alone") return [family, nest] as const;
    if (where === "beside")
      return [family, `{"id":${id},"junk":${nest},"method":"admit","args":[]}`] as const;
    return [family, `{"id":${id},"method":"cancel","args":[${nest}]}`] as const;
  });

/** A call whose frame and arguments carry keys that reach a prototype when code is careless. */
const prototypeText = fc
  .tuple(
    fc.constantFrom(...PROTO_KEYS),
    fc.constantFrom(...REMOTE_METHODS),
    fc.integer({ min: 0, max: 1_000 }),
  )
  .map(
    ([k, method, id]) =>
      `{${JSON.stringify(k)}:{"id":${id}},"id":${id},"method":"${method}","args":[{${JSON.stringify(k)}:{"polluted":true}},${JSON.stringify(k)}]}`,
  );

/** A string argument from a few KB to past the frame bound, in one-, two- or six-byte characters. */
const hugeText = fc
  .tuple(
    fc.oneof(fc.integer({ min: 1_000, max: 200_000 }), fc.integer({ min: 250_000, max: 400_000 })),
    fc.constantFrom("x", "é", "\u0001", "\ud800"),
    fc.constantFrom(...REMOTE_METHODS),
  )
  .map(([n, ch, method]) => `{"id":7,"method":"${method}","args":[${JSON.stringify(ch.repeat(n))}]}`);

/** Arrays or objects far wider than any valid argument. */
const wideText = fc
  .tuple(fc.integer({ min: 1_000, max: 30_000 }), fc.boolean())
  .map(([n, asObject]) =>
    asObject
      ? `{"id":8,"method":"admit","args":[{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(",")}}]}`
      : `{"id":8,"method":"admit","args":[[${"0,".repeat(n)}0]]}`,
  );

const garbage = fc
  .uint8Array({ minLength: 1, maxLength: 300 })
  .map((bytes) => Buffer.from(bytes.map((b) => (b === 0x0a ? 0x20 : b))));

/** Every family of frame the fuzz sends; a run of CI's size must have drawn each of them. */
export const FRAME_FAMILIES = [
  "call",
  "deep",
  "deep 100000",
  "prototype keys",
  "huge string",
  "wide",
  "truncated",
  "garbage",
  "oversized",
];

/** Every family of frame the fuzz sends over an authenticated connection. */
export function frameArbitrary(port: ToolActionPortIdentity): fc.Arbitrary<WireFrame> {
  const text = (family: string, arbitrary: fc.Arbitrary<string>) =>
    arbitrary.map((t) => ({ family, bytes: Buffer.from(t.replaceAll("\n", " "), "utf8") }));
  const call = callText(port);
  return fc.oneof(
    { arbitrary: text("call", call), weight: 60 },
    {
      arbitrary: deepText.map(([family, t]) => ({ family, bytes: Buffer.from(t, "utf8") })),
      weight: 2,
    },
    { arbitrary: text("prototype keys", prototypeText), weight: 1 },
    { arbitrary: text("huge string", hugeText), weight: 1 },
    { arbitrary: text("wide", wideText), weight: 1 },
    {
      arbitrary: text(
        "truncated",
        fc.tuple(call, fc.nat()).map(([t, cut]) => t.slice(0, 1 + (cut % Math.max(1, t.length - 1)))),
      ),
      weight: 4,
    },
    { arbitrary: garbage.map((bytes) => ({ family: "garbage", bytes })), weight: 4 },
    {
      arbitrary: text(
        "oversized",
        call.map((t) => `${t}${" ".repeat(BridgeLimits.maxFrameBytes)}`),
      ),
      weight: 1,
    },
  );
}
