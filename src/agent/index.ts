export {
  type AgentCommandOptions,
  AgentCommandRuntime,
  AgentEnv,
  type AgentRun,
} from "./command-runtime.js";
export {
  gatewayConfig,
  type McpServerEntry,
  type McpUpstream,
  parseMcpUpstream,
  writeGatewayConfig,
} from "./mcp-config.js";
export { type AgentExit, groupMembers, runInProcessGroup, signalGroup } from "./process-group.js";
