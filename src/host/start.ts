import type { RuntimeModel } from "../compiler/index.js";
import {
  type CallStages,
  type HttpAddress,
  type SessionCallsFactory,
  startGateway,
  startHttpGateway,
  type ToolMap,
  type UpstreamCommand,
} from "../mcp/index.js";
import { HostDriver } from "./driver.js";
import { HostSession } from "./session.js";

/** Everything `startHost` needs. */
export interface HostOptions {
  readonly model: RuntimeModel;
  /** The backend manifest JSON, as in the file. */
  readonly manifest: unknown;
  /** The participant address the gateway runs (see `hostParticipant`). */
  readonly participant: string;
  /** The control-plane store URL. */
  readonly store: string;
  readonly map: ToolMap;
  readonly upstream: UpstreamCommand;
  /** How long a forwarded call may take before its effects count as unknown. */
  readonly timeoutMs: number;
  /** How long a session may go without a `tools/list` or `tools/call` before it ends. */
  readonly idleMs: number;
  /** Serve Streamable HTTP here instead of stdio. */
  readonly http?: {
    readonly listen: HttpAddress;
    readonly allowRemote?: boolean;
    readonly bearerToken?: string;
  };
  readonly leaseTtlMs?: number;
  readonly log: (line: string) => void;
  readonly onStages?: (stages: CallStages) => void;
  /**
   * Aborted while the host starts (a signal): the upstream is closed, its process group included,
   * and the start rejects with the signal's reason. A running host is stopped with `close`.
   */
  readonly signal?: AbortSignal;
}

/** A running host-mode gateway. */
export interface RunningHost {
  /** The MCP endpoint over HTTP; undefined over stdio. */
  readonly url?: string;
  /** Resolves once the gateway has shut down, every invocation has returned and the store is closed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts host mode: a governed MCP server that is itself the participant runtime of one participant.
 * Each MCP session (stdio: the process; HTTP: each `Mcp-Session-Id`) is one outer invocation of it,
 * run on the policy clock the sessions drive (docs/guide/gateway.md#host-mode).
 */
export async function startHost(options: HostOptions): Promise<RunningHost> {
  const driver = new HostDriver({
    model: options.model,
    manifest: options.manifest,
    store: options.store,
    participant: options.participant,
    log: options.log,
    ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
  });
  const sessionCalls: SessionCallsFactory = (session, governed) =>
    new HostSession({ driver, session, governed, idleMs: options.idleMs });
  const common = {
    map: options.map,
    upstream: options.upstream,
    timeoutMs: options.timeoutMs,
    sessionCalls,
    log: options.log,
    storeUrl: options.store,
    // The port is this process's own, and a session drains before its invocation ends.
    settleAfterAnswer: true,
    ...(options.onStages ? { onStages: options.onStages } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  let url: string | undefined;
  let gateway: { readonly closed: Promise<void>; close(): Promise<void> };
  if (options.http) {
    const http = await startHttpGateway({
      ...common,
      listen: options.http.listen,
      allowRemote: options.http.allowRemote === true,
      idleTimeoutMs: options.idleMs,
      ...(options.http.bearerToken === undefined ? {} : { bearerToken: options.http.bearerToken }),
    });
    url = http.url;
    gateway = http;
  } else gateway = await startGateway(common);
  const closed = gateway.closed.then(() => driver.close());
  return {
    ...(url === undefined ? {} : { url }),
    closed,
    close: async () => {
      await gateway.close();
      await closed;
    },
  };
}

/**
 * The participant a host runs: the one named, or the only autonomous participant with a tool
 * affordance binding. The answer is a problem to print (a usage error) when there is no such one.
 */
export function hostParticipant(
  model: RuntimeModel,
  named: string | undefined,
): { readonly participant: string } | { readonly problem: string } {
  const autonomous = new Set(Object.values(model.autonomousPolicies).flatMap((p) => p.participantAddresses));
  const bound = new Set(model.affordanceBindings.map((b) => b.participantAddress));
  const candidates = [...autonomous].filter((p) => bound.has(p)).sort();
  if (named !== undefined) {
    if (autonomous.has(named)) return { participant: named };
    const known = [...autonomous].sort();
    return {
      problem: `--participant ${named} is not an autonomous participant of the scenario${known.length > 0 ? `; it has: ${known.join(", ")}` : ""}`,
    };
  }
  const [only, ...others] = candidates;
  if (only !== undefined && others.length === 0) return { participant: only };
  return {
    problem:
      only === undefined
        ? "the scenario has no autonomous participant with a tool affordance binding for the gateway to run"
        : `the scenario has several autonomous participants with tool affordance bindings; choose one with --participant: ${candidates.join(", ")}`,
  };
}

/**
 * The map entries no call could ever be admitted for in host mode: those whose tool affordance and
 * action contract are not bound to the participant in the scenario (the port would refuse every
 * call `affordance_unbound`). Host mode knows the scenario, so it says so before a session spends
 * an attempt on them. Targets are left to the port: a target outside the binding is refused per call.
 */
export function hostMapProblems(model: RuntimeModel, participant: string, map: ToolMap): readonly string[] {
  const bound = new Set(
    model.affordanceBindings
      .filter((b) => b.participantAddress === participant)
      .map((b) => `${b.toolAffordanceAddress}\n${b.actionContractAddress}`),
  );
  const problems: string[] = [];
  for (const [tool, entry] of map.tools) {
    if (!bound.has(`${entry.toolAffordanceAddress}\n${entry.actionContractAddress}`)) {
      problems.push(
        `map tool ${tool}: ${participant} has no binding of tool affordance ${entry.toolAffordanceAddress} to action contract ${entry.actionContractAddress} in the scenario, so every call would be refused affordance_unbound`,
      );
    }
  }
  return problems;
}
