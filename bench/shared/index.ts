/**
 * The machinery bench suites share: timing in alternated blocks, the tables that report it, the
 * markdown page of a run, the runtimes and manifests of the harness, and the generators and fillers
 * that build scenarios and stores of any size. Suites import it through this door and never import
 * one another.
 */

export {
  builtCli,
  manifestWithoutClaim,
  manifestWithToolLimit,
  noopResult,
  noopRuntime,
  PG_URL,
  pgAvailable,
  pgSchema,
  quickMode,
  scratchDir,
  ToolCallRuntime,
} from "./harness.js";
export {
  fillPgHistory,
  fillSqliteHistory,
  historyTemplates,
  settleStore,
  type Templates,
} from "./history.js";
export {
  type RecoveryResult,
  seedPgInterrupted,
  seedSqliteInterrupted,
  timeRecovery,
} from "./interrupted.js";
export { generatedManifest } from "./manifest.js";
export { renderBenchmarksPage, type SuiteRun, writeBenchmarksPage } from "./page.js";
export { type ExampleRecords, exampleRecords } from "./records.js";
export {
  GENERATED_ACTIONS,
  GENERATED_AFFORDANCES,
  GENERATED_GROUP_SIZE,
  generateScenario,
} from "./scenario.js";
export {
  type FloorRow,
  fmt,
  type Measurement,
  type Printed,
  printFloorTable,
  printImage,
  printNote,
  printTable,
  takePrinted,
} from "./tables.js";
export {
  type Alternation,
  alternate,
  alternationOf,
  asFloorRow,
  type Block,
  type BlockTime,
  callsBlock,
  median,
  rotate,
  timedBlock,
} from "./timing.js";
