import fc from "fast-check";

/** Characters of text a shape is asked for: mostly small, one in ten from 100 KB to 1 MB. */
const size = fc.oneof(
  { weight: 9, arbitrary: fc.integer({ min: 1, max: 10_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(100_000, 300_000, 1_000_000) },
);

/** Anchors defined ten times over, each naming the one before ten times ("billion laughs"). */
function laughs(levels: number): string {
  const lines = ["a0: &a0 [x,x,x,x,x,x,x,x,x,x]"];
  for (let i = 1; i < levels; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(",")}]`,
    );
  return `${lines.join("\n")}\nz: *a${levels - 1}\n`;
}

/** YAML shapes that make a parser spend time or memory out of proportion to their size, `n` characters long. */
const SHAPES: ReadonlyArray<(n: number) => string> = [
  (n) => '"'.repeat(n),
  (n) => "'".repeat(n),
  (n) => `a: "${"x".repeat(n)}`,
  (n) => `a: '${"x\n".repeat(Math.ceil(n / 2))}`,
  (n) => `a: ${"[".repeat(Math.min(n, 100_000))}`,
  (n) => `a: ${"{a: ".repeat(Math.min(Math.ceil(n / 4), 100_000))}`,
  (n) => laughs(Math.min(2 + Math.floor(n / 1_000), 12)),
  (n) =>
    `a: &a x\nb: [${Array(Math.ceil(n / 3))
      .fill("*a")
      .join(",")}]`,
  (n) => "&a ".repeat(Math.ceil(n / 3)),
  (n) => "!a ".repeat(Math.ceil(n / 3)),
  (n) => ": ".repeat(Math.ceil(n / 2)),
  (n) => "? ".repeat(Math.ceil(n / 2)),
  (n) => Array.from({ length: Math.ceil(n / 10) }, (_, i) => `k${i}: 1`).join("\n"),
  (n) => `a: ${"x ".repeat(Math.ceil(n / 2))}`,
  (n) => `a: [${",".repeat(n)}]`,
  (n) => `a: |\n${"  x\n".repeat(Math.ceil(n / 4))}`,
];

/** Pathological YAML: unterminated quotes, deep flow, aliases, anchors, tags, many keys, long scalars. */
export const pathologicalYaml = fc
  .tuple(fc.integer({ min: 0, max: SHAPES.length - 1 }), size)
  .map(([shape, n]) => (SHAPES[shape] as (n: number) => string)(n));
