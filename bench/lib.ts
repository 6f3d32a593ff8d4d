/** Timing helpers shared by bench suites: a warm-up plus timed loop, and a table that reports ratios to a floor. */

/** How long and how often to run a measured function. */
export interface MeasureOptions {
  /** Untimed calls before timing starts (default 5). */
  readonly warmup?: number;
  /** Keep timing until at least this many milliseconds have passed (default 500)... */
  readonly minMs?: number;
  /** ...and at least this many timed calls were made (default 5). */
  readonly minRuns?: number;
  /** Stop after this many timed calls even if `minMs` has not passed (default 10 000). */
  readonly maxRuns?: number;
}

/** The result of one measurement, in milliseconds per call. */
export interface Measurement {
  readonly label: string;
  readonly runs: number;
  readonly meanMs: number;
  readonly medianMs: number;
  readonly minMs: number;
}

/** Warms `fn` up, then times calls until both the time and run minimums are met. */
export function measure(label: string, fn: () => unknown, options: MeasureOptions = {}): Measurement {
  const { warmup = 5, minMs = 500, minRuns = 5, maxRuns = 10_000 } = options;
  for (let i = 0; i < warmup; i++) fn();
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < maxRuns && (samples.length < minRuns || performance.now() - start < minMs)) {
    const before = performance.now();
    fn();
    samples.push(performance.now() - before);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((sum, sample) => sum + sample, 0) / samples.length;
  const middle = sorted[Math.floor(sorted.length / 2)] ?? mean;
  return { label, runs: samples.length, meanMs: mean, medianMs: middle, minMs: sorted[0] ?? mean };
}

/** Formats a number with fixed digits and thousands separators. */
export function fmt(value: number, digits = 2): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Prints a titled, column-aligned table. */
export function printTable(
  title: string,
  header: readonly string[],
  rows: readonly (readonly string[])[],
): void {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  ");
  process.stdout.write(
    `\n${title}\n${line(header)}\n${widths.map((width) => "-".repeat(width)).join("  ")}\n`,
  );
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

/** One row of a floor table: a measurement and the floor it is compared with (measured in the same run). */
export interface FloorRow {
  readonly measurement: Measurement;
  readonly floor: Measurement;
  /** Extra cells printed after the standard ones. */
  readonly extra?: readonly string[];
}

/** Prints median ms per call for each row, its floor, and the ratio of the two. */
export function printFloorTable(
  title: string,
  rows: readonly FloorRow[],
  extraHeader: readonly string[] = [],
): void {
  printTable(
    title,
    ["case", "runs", "ms/op (median)", "floor", "floor ms/op", "× floor", ...extraHeader],
    rows.map(({ measurement, floor, extra = [] }) => [
      measurement.label,
      String(measurement.runs),
      fmt(measurement.medianMs, 3),
      floor.label,
      fmt(floor.medianMs, 3),
      fmt(measurement.medianMs / floor.medianMs, 2),
      ...extra,
    ]),
  );
}
