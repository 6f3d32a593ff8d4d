/**
 * Generated messages for the worker bridge: anything structured clone can carry, aimed at the
 * call shape and the port's rules, plus deep, huge, wide and sparse values.
 */
import fc from "fast-check";
import { REMOTE_METHODS } from "../../../src/port/bridge/remote.js";
import type { ToolActionPortIdentity } from "../../../src/port/index.js";
import { outcomeFor, requestFor } from "../../helpers/tool-requests.js";

/** One generated message; it prints as its family and a short description, never as the value. */
export class BridgeMessage {
  constructor(
    readonly family: string,
    readonly description: string,
    readonly value: unknown,
  ) {}

  [fc.toStringMethod](): string {
    return `${this.family}: ${this.description}`;
  }
}

const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "valueOf", "$raes"];
const key = fc.oneof(fc.constantFrom(...PROTO_KEYS, "id", "method", "args"), fc.string({ maxLength: 6 }));

/** Any value structured clone carries: maps, sets, dates, typed and sparse arrays, bigints, boxed values. */
const anyValue = fc.anything({
  key,
  maxDepth: 3,
  maxKeys: 4,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
});

const idValue = fc.oneof(
  { arbitrary: fc.integer({ min: -5, max: 1_000_000 }), weight: 30 },
  {
    arbitrary: fc.constantFrom(
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER + 1,
      1.5,
      -0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1n,
      "1",
      null,
      undefined,
    ),
    weight: 1,
  },
  { arbitrary: anyValue, weight: 1 },
);

const methodValue = fc.oneof(
  { arbitrary: fc.constantFrom(...REMOTE_METHODS), weight: 6 },
  { arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "ADMIT", ""), weight: 1 },
  { arbitrary: anyValue, weight: 1 },
);

function withOwn(value: object, entries: ReadonlyArray<readonly [string, unknown]>): object {
  for (const [k, v] of entries)
    Object.defineProperty(value, k, { value: v, enumerable: true, writable: true, configurable: true });
  return value;
}

function argValue(port: ToolActionPortIdentity): fc.Arbitrary<unknown> {
  const field = fc.oneof(key, fc.constantFrom(...Object.keys(requestFor(port, "x"))));
  const mutations = fc.array(fc.tuple(field, anyValue), { maxLength: 3 });
  const actionId = fc.integer({ min: 1, max: 20 }).map((n) => `${port.invocationActionInstanceId}:tool=${n}`);
  return fc.oneof(
    { arbitrary: anyValue, weight: 4 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom("a", "b", "c", "d"), mutations)
        .map(([id, m]) => withOwn(requestFor(port, id), m)),
      weight: 4,
    },
    {
      arbitrary: fc.tuple(actionId, mutations).map(([id, m]) => withOwn(outcomeFor(port, id), m)),
      weight: 2,
    },
    { arbitrary: actionId, weight: 3 },
  );
}

function nested(depth: number, asObject: boolean): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value];
  return value;
}

/** Every family of message the fuzz posts; a run of CI's size must have drawn each of them. */
export const MESSAGE_FAMILIES = [
  "call",
  "deep",
  "deep 100000",
  "prototype keys",
  "huge string",
  "wide",
  "not a call",
  "garbage bytes",
];

/** Every family of message the fuzz posts to an exposed port. */
export function messageArbitrary(port: ToolActionPortIdentity): fc.Arbitrary<BridgeMessage> {
  const args = fc.oneof(
    { arbitrary: fc.array(argValue(port), { maxLength: 3 }), weight: 6 },
    { arbitrary: anyValue, weight: 1 },
  );
  const call = fc
    .tuple(idValue, methodValue, args, fc.array(fc.tuple(key, anyValue), { maxLength: 2 }))
    .map(
      ([id, method, a, more]) =>
        new BridgeMessage(
          "call",
          typeof method === "string" ? method : typeof method,
          withOwn({ id, method, args: a }, more),
        ),
    );
  const depth = fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 40 }), weight: 4 },
    { arbitrary: fc.integer({ min: 41, max: 5_000 }), weight: 2 },
    { arbitrary: fc.integer({ min: 5_001, max: 99_999 }), weight: 1 },
    { arbitrary: fc.constant(100_000), weight: 1 },
  );
  const deep = fc.tuple(depth, fc.boolean(), fc.integer({ min: 0, max: 1_000 })).map(
    ([d, asObject, id]) =>
      new BridgeMessage(d === 100_000 ? "deep 100000" : "deep", `${d} ${asObject ? "objects" : "arrays"}`, {
        id,
        method: "cancel",
        args: [nested(d, asObject)],
      }),
  );
  const huge = fc
    .tuple(fc.integer({ min: 1_000, max: 2_000_000 }), fc.constantFrom(...REMOTE_METHODS))
    .map(
      ([n, method]) =>
        new BridgeMessage("huge string", `${n} chars`, { id: 7, method, args: ["x".repeat(n)] }),
    );
  const wide = fc
    .tuple(fc.integer({ min: 1_000, max: 10_000 }), fc.constantFrom("array", "object", "sparse", "bytes"))
    .map(([n, kind]) => {
      const value =
        kind === "array"
          ? new Array(n).fill(0)
          : kind === "object"
            ? Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 0]))
            : kind === "sparse"
              ? Object.assign([], { length: Math.min(n * 400_000, 2 ** 32 - 1) })
              : new Uint8Array(n * 100);
      return new BridgeMessage("wide", `${kind} of ${n}`, { id: 8, method: "admit", args: [value] });
    });
  const bare = anyValue.map((v) => new BridgeMessage("not a call", typeof v, v));
  const prototype = fc
    .tuple(
      fc.constantFrom(...PROTO_KEYS),
      fc.constantFrom(...REMOTE_METHODS),
      fc.integer({ min: 0, max: 1_000 }),
    )
    .map(
      ([k, method, id]) =>
        new BridgeMessage(
          "prototype keys",
          k,
          withOwn({ id, method, args: [withOwn({}, [[k, { polluted: true }]]), k] }, [[k, { id }]]),
        ),
    );
  const garbage = fc
    .tuple(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.boolean())
    .map(
      ([bytes, alone]) =>
        new BridgeMessage(
          "garbage bytes",
          `${bytes.length} bytes${alone ? "" : " as args"}`,
          alone ? bytes.buffer : { id: 9, method: "admit", args: [bytes] },
        ),
    );
  return fc.oneof(
    { arbitrary: call, weight: 70 },
    { arbitrary: deep, weight: 2 },
    { arbitrary: huge, weight: 1 },
    { arbitrary: wide, weight: 1 },
    { arbitrary: bare, weight: 8 },
    { arbitrary: prototype, weight: 1 },
    { arbitrary: garbage, weight: 1 },
  );
}
