import { printableStoreUrl } from "../../printed/index.js";

/** How wide a table may be unless `--wide` asks for every cell whole. */
export const TABLE_WIDTH = 120;

/** A table column: its header, and whether its cells may be cut to fit (an id is never cut). */
export interface Column {
  readonly header: string;
  readonly cut?: boolean;
}

/**
 * The lines of a table, two spaces between columns, each line at most `width` characters when given:
 * the widest column that may be cut loses characters first, and a cut cell ends with `…`.
 */
export function tableLines(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  width?: number,
): string[] {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? "").length)));
  if (width !== undefined) {
    const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
    while (total() > width) {
      let widest = -1;
      for (const [i, c] of columns.entries())
        if (c.cut === true && (widest < 0 || (widths[i] as number) > (widths[widest] as number))) widest = i;
      if (widest < 0 || (widths[widest] as number) <= (columns[widest]?.header.length ?? 0)) break;
      widths[widest] = (widths[widest] as number) - 1;
    }
  }
  const fit = (cell: string, w: number) =>
    cell.length <= w ? cell : `${cell.slice(0, Math.max(0, w - 1))}…`;
  return [columns.map((c) => c.header), ...rows].map((row) =>
    row
      .map((cell, i) => {
        const w = widths[i] as number;
        const shown = fit(cell, w);
        return i === row.length - 1 ? shown : shown.padEnd(w);
      })
      .join("  ")
      .trimEnd(),
  );
}

/**
 * The one answer of a read command that found nothing: `raes: no NOUN match in STORE` on stderr, exit 0
 * (an empty answer is not an error; `--json` prints the empty list instead).
 */
export function printNothingMatched(noun: string, storeUrl: string): void {
  process.stderr.write(`raes: no ${noun} match in ${printableStoreUrl(storeUrl)}\n`);
}
