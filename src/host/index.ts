export { HostCode } from "./codes.js";
export { HostDriver, type HostDriverOptions, type SessionClaim } from "./driver.js";
export { HostRuntime, type LiveInvocation } from "./host-runtime.js";
export { type HostOptions, hostMapProblems, hostParticipant, type RunningHost, startHost } from "./start.js";
