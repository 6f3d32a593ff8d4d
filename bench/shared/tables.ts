/**
 * How bench suites report: titled, column-aligned tables and the notes beside them, printed as they
 * are measured and kept, in order, so `npm run bench -- --markdown` can write them to a page
 * (page.ts) once the run is over.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One thing a suite printed for its reader. */
export type Printed =
  | {
      readonly kind: "table";
      readonly title: string;
      readonly header: readonly string[];
      readonly rows: readonly (readonly string[])[];
    }
  | { readonly kind: "note"; readonly text: string }
  | { readonly kind: "image"; readonly name: string; readonly alt: string; readonly png: Uint8Array };

const printed: Printed[] = [];

/** What was printed since the last call, in order; the list is emptied. */
export function takePrinted(): Printed[] {
  return printed.splice(0);
}

/** The result of one measurement, in milliseconds per call. */
export interface Measurement {
  readonly label: string;
  readonly runs: number;
  readonly meanMs: number;
  readonly medianMs: number;
  readonly minMs: number;
}

/** Formats a number with fixed digits and thousands separators. */
export function fmt(value: number, digits = 2): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Prints a titled, column-aligned table, and keeps it for the page. */
export function printTable(
  title: string,
  header: readonly string[],
  rows: readonly (readonly string[])[],
): void {
  printed.push({ kind: "table", title, header: [...header], rows: rows.map((row) => [...row]) });
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

/**
 * Prints a note that reads a table (what its floor is, a ratio it implies, a side that was skipped)
 * as `console.log` prints it, and keeps it for the page.
 */
export function printNote(text: string): void {
  console.log(text);
  const kept = text.trim();
  if (kept !== "") printed.push({ kind: "note", text: kept });
}

/**
 * Shows a PNG the suite drew (a plot): written now to the OS temp folder, and with `--markdown` next
 * to the page, under `benchmarks/NAME`, and shown there.
 */
export function printImage(name: string, alt: string, png: Uint8Array): void {
  const path = join(tmpdir(), `raes-bench-${name}`);
  writeFileSync(path, png);
  console.log(`${alt}: ${path}`);
  printed.push({ kind: "image", name, alt, png });
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
