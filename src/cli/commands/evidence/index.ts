/** The evidence commands: `raes verify` (a store's chains, or a bundle offline) and `raes export --bundle`. */
export { registerExportCommand } from "./export.js";
export { registerVerifyCommand } from "./verify.js";
