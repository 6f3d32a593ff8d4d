/** `raes control ACTION PARTICIPANT`: one execution control of a participant, recorded as an operator decision. */
export { registerControlCommand } from "./control.js";
