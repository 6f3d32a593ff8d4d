export {
  absoluteStoreUrl,
  approvalCommands,
  budgetEventsCommand,
  needsOperatorCommand,
  printableStoreUrl,
  printedCommand,
  resolveCommands,
  resumeCommand,
  shellWord,
  verifyCommand,
} from "./commands.js";
export { CLI_MAIN, type InvocationContext, invocationWords, raesInvocation } from "./invocation.js";
export { formatDuration, isoTime } from "./time.js";
