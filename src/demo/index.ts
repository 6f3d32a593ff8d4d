export { PACKAGE_ROOT } from "./launch.js";
export { type AgentCall, type AgentReport, DEMO_PLANS, type DemoPlan } from "./plan.js";
export { LOGIN_PATH, type PortalService, STALLED_PATH, startPortalService } from "./portal-service.js";
export {
  DEMO_FILES,
  DEMO_STORE_URL,
  type DemoInvocation,
  type DemoOptions,
  type DemoSummary,
  runDemo,
} from "./run-demo.js";
export { type DemoAgentRun, type DemoHarnessOptions, DemoHarnessRuntime } from "./runtime.js";
