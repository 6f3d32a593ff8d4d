export {
  absoluteStoreUrl,
  printableStoreUrl,
  resolveCommands,
  resumeCommand,
  shellWord,
} from "./commands.js";
export { formatDuration, isoTime } from "./time.js";
