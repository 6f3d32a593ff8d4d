/**
 * What the CLI writes for people and scripts: tables that fit 120 columns, JSON streamed a page at
 * a time, run progress and the next steps a stop prints.
 */
export { writeFileParts } from "./file-parts.js";
export { type StreamedField, writeJsonObject, writeText } from "./json-stream.js";
export {
  byParticipant,
  type NextStep,
  nextStepLines,
  nextSteps,
  type StoppedScheduler,
} from "./next-steps.js";
export { pacingJson, pacingLine, RunProgress, shareLine } from "./progress.js";
export { type Column, printNothingMatched, TABLE_WIDTH, tableLines } from "./table.js";
