export {
  type ActionContext,
  type ActionOutcome,
  ActionSubject,
  CONSOLE_ACTIONS,
  type ConsoleAction,
  type RunAction,
  type ServiceControls,
} from "./actions.js";
export { ChainState, type ChainView } from "./chain.js";
export { REFUSAL_STATUS, ServeErrorCode, ServeRefusal } from "./codes.js";
export { FRAME_CSP, FRAME_EVENTS, MAX_WAITING_RENDERS } from "./frames.js";
export {
  DEFAULT_LISTEN,
  hostPort,
  isLoopback,
  type ListenAddress,
  newToken,
  parseListen,
  sameToken,
  tokenProblem,
} from "./guard.js";
export { CONSOLE_CSP, consolePage } from "./page.js";
export { CONSOLE_SCRIPT } from "./script.js";
export {
  type ConsoleOptions,
  type ConsoleServer,
  DEFAULT_TIMING,
  startConsole,
} from "./server.js";
export {
  type ApprovalView,
  type ConsoleState,
  type OperationView,
  type ParticipantView,
  readConsoleState,
  SHOWN,
  type WaitView,
} from "./state.js";
