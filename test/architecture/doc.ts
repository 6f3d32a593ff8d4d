import { readFileSync } from "node:fs";
import type { AllowedArrows } from "./rules.js";

/** One row of the layer table in docs/architecture.md. */
export interface LayerRow {
  readonly layer: number;
  readonly folder: string;
  readonly imports: readonly string[];
}

const ROW = /^\|\s*(\d+)\s*\|\s*`([^`]+)`\s*\|[^|]*\|([^|]*)\|\s*$/;

/** The layer table's rows, read from the markdown: layer, folder and the backticked folders it may import. */
export function readLayerTable(markdown: string): LayerRow[] {
  return markdown.split("\n").flatMap((line) => {
    const match = ROW.exec(line);
    if (!match) return [];
    const [, layer, folder, imports] = match as unknown as [string, string, string, string];
    return [
      {
        layer: Number(layer),
        folder,
        imports: [...imports.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string),
      },
    ];
  });
}

/** The allowed arrows the table lists, by importing folder. */
export function allowedArrows(rows: readonly LayerRow[]): AllowedArrows {
  return new Map(rows.map((row) => [row.folder, new Set(row.imports)]));
}

/** Reads docs/architecture.md's layer table from a file. */
export function readLayerFile(path: string): LayerRow[] {
  return readLayerTable(readFileSync(path, "utf8"));
}
