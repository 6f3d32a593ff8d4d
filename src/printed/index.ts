export { absoluteStoreUrl, printableStoreUrl, resolveCommands, shellWord } from "./commands.js";
export { formatDuration, isoTime } from "./time.js";
