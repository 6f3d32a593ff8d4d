/**
 * `npx tsx scripts/architecture-figures.ts [--list]`: how far `src/` is from the shape rules of
 * docs/architecture.md, as counts, from the same engine the architecture test runs. `--list` also
 * prints every violation and every file over the soft length. Exits 0 either way: it measures,
 * the test judges.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { scanFiles, scanImports } from "../test/architecture/graph.js";
import {
  checkStructure,
  describeStructureViolation,
  figures,
  LIMITS,
  longFiles,
} from "../test/architecture/structure.js";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");
const edges = scanImports(SRC);
const files = scanFiles(SRC);
const counts = figures(edges, files);

const rows: readonly [string, number][] = [
  [`folders with more than ${LIMITS.filesPerFolder} source files`, counts.crowdedFolders],
  [`files over ${LIMITS.hardLines} lines`, counts.filesOverHard],
  ["circles of files", counts.fileCycles],
  ["nested-door violations", counts.doorViolations],
  [`files over ${LIMITS.softLines} lines (warning)`, counts.filesOverSoft],
];
const width = Math.max(...rows.map(([label]) => label.length));
for (const [label, count] of rows) console.log(`${label.padEnd(width)}  ${count}`);

if (process.argv.includes("--list")) {
  console.log("");
  for (const violation of checkStructure(edges, files)) console.log(describeStructureViolation(violation));
  for (const file of longFiles(files, LIMITS.softLines)) {
    console.log(`warning: ${file.path} has ${file.lines} lines, over ${LIMITS.softLines}`);
  }
}
