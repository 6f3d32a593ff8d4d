/** The approval commands: `raes approve` and `raes deny` of a call held for approval (docs/guide/approvals.md). */
export { registerApproveCommand, registerDenyCommand } from "./decide.js";
