import fc from "fast-check";

/** Counts the families of input a fuzz target drew, so a run of CI's size can prove it drew each. */
export class FamilyTally {
  readonly counts = new Map<string, number>();
  inputs = 0;

  /** Notes one input of a family; a text of 1 MB or more also counts as a huge string. */
  note(family: string, text?: string): void {
    this.inputs += 1;
    this.add(family);
    if (text !== undefined && text.length >= 1_000_000) this.add("huge string");
  }

  add(family: string): void {
    this.counts.set(family, (this.counts.get(family) ?? 0) + 1);
  }

  missing(families: readonly string[]): string[] {
    return families.filter((family) => !this.counts.has(family));
  }

  summary(): string {
    return [...this.counts]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k}=${n}`)
      .join(", ");
  }
}

/** An input and the family it was drawn from. */
export interface Drawn<T> {
  readonly family: string;
  readonly input: T;
}

/** Labels what an arbitrary draws with one family. */
export function drawn<T>(family: string, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<Drawn<T>> {
  return arbitrary.map((input) => ({ family, input }));
}

/** Keys that reach an object's prototype or shadow its methods when code is careless. */
export const PROTOTYPE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
];

/** Nesting depths, mostly small, sometimes hostile (10 000 or exactly 100 000 levels). */
export const depth = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 20 }) },
  { weight: 2, arbitrary: fc.integer({ min: 50, max: 2_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(10_000, 100_000) },
);

/** The family of a nested input: 100 000 levels is the bound and is tallied apart. */
export function deepFamily(levels: number): string {
  return levels >= 100_000 ? "deep 100000" : "deep";
}

/** A JSON text nesting one value `levels` deep in arrays or objects. */
export function nestedJson(levels: number, kind: "array" | "object", leaf = "1"): string {
  return kind === "array"
    ? `${"[".repeat(levels)}${leaf}${"]".repeat(levels)}`
    : `${'{"a":'.repeat(levels)}${leaf}${"}".repeat(levels)}`;
}

/** Deeply nested JSON text, drawn as its depth's family. */
export const deepJson: fc.Arbitrary<Drawn<string>> = fc
  .tuple(depth, fc.constantFrom("array" as const, "object" as const))
  .map(([levels, kind]) => ({ family: deepFamily(levels), input: nestedJson(levels, kind) }));

/** Strings from empty to huge (up to 1 MB), with unicode, control characters and lone surrogates. */
export const anyString = fc.oneof(
  { weight: 10, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(...PROTOTYPE_KEYS, "", "null", "~", "1", "-1", "NaN", "\u0000", "\ud800"),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom("x", "é", "\n", "[", "{", "- "),
        fc.constantFrom(1_000, 10_000, 100_000, 1_000_000),
      )
      .map(([unit, n]) => unit.repeat(n)),
  },
);

/** JSON values of every type, with prototype keys among the object keys. */
export const anyJsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    anyString,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 8 })), tie("value"), {
      maxKeys: 4,
    }),
  ),
})).value;

/** Bytes that are mostly not text at all, as a latin-1 string so every byte value survives. */
export const garbageBytes = fc
  .uint8Array({ maxLength: 200 })
  .map((bytes) => Buffer.from(bytes).toString("latin1"));

/** Cuts or flips a valid text: truncated at a random point, or with characters replaced. */
export function mutated(text: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.nat({ max: text.length }).map((at) => text.slice(0, at)),
    fc
      .array(
        fc.tuple(fc.nat({ max: Math.max(0, text.length - 1) }), fc.string({ minLength: 1, maxLength: 3 })),
        {
          minLength: 1,
          maxLength: 5,
        },
      )
      .map((edits) => {
        let out = text;
        for (const [at, replacement] of edits) out = `${out.slice(0, at)}${replacement}${out.slice(at + 1)}`;
        return out;
      }),
  );
}

/** Replaces the value at one random path of a JSON document with another JSON value (a wrong type). */
export function withWrongValue(document: unknown): fc.Arbitrary<unknown> {
  const paths: (string | number)[][] = [];
  const walk = (value: unknown, path: (string | number)[]) => {
    paths.push(path);
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, [...path, i]);
    } else if (value !== null && typeof value === "object")
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
  };
  walk(document, []);
  return fc.tuple(fc.constantFrom(...paths), anyJsonValue).map(([path, value]) => {
    if (path.length === 0) return value;
    const copy = structuredClone(document) as Record<string | number, unknown>;
    let at = copy;
    for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
    Object.defineProperty(at, path.at(-1) as string | number, { value, enumerable: true, writable: true });
    return copy;
  });
}
