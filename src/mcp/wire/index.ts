export {
  type CheckedBody,
  type CheckedMessage,
  checkBody,
  checkMessage,
  MAX_BATCH,
  parseErrorAnswer,
  requestIdOf,
  requestKey,
  rpcError,
} from "./check.js";
export { CheckedStdioTransport, MAX_LINE_BYTES, STDIO_BATCH_REFUSED } from "./stdio.js";
