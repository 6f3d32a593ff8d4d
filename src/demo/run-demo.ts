import { readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { compileScenario, type RuntimeModel } from "../compiler/index.js";
import { ParticipantToolActionRefusal } from "../port/index.js";
import { sqliteStorePath } from "../records/index.js";
import { type InvocationSummary, RuntimeManager } from "../runtime/index.js";
import { formatDiagnostic, hasErrors, loadScenario } from "../sdl/index.js";
import type { ControlPlaneStore, SchedulerRecord } from "../store/index.js";
import { PACKAGE_ROOT } from "./launch.js";
import type { AgentCall } from "./plan.js";
import { startPortalService } from "./portal-service.js";
import { type DemoAgentRun, DemoHarnessRuntime } from "./runtime.js";

/** The store `raes demo` uses unless told otherwise; it is deleted and recreated on every run. */
export const DEMO_STORE_URL = "sqlite:.raes/demo.db";
/** The example scenario, manifest and gateway map the demo runs. */
export const DEMO_FILES = {
  scenario: join(PACKAGE_ROOT, "examples", "enterprise-participant-evidence-loop.sdl.yaml"),
  manifest: join(PACKAGE_ROOT, "examples", "harness-backend.manifest.json"),
  map: join(PACKAGE_ROOT, "examples", "demo", "mcp-map.yaml"),
} as const;
/** The v2 example (activity policy) and its manifest, for `raes demo --profile v2`. */
export const DEMO_V2_FILES = {
  scenario: join(PACKAGE_ROOT, "examples", "enterprise-participant-activity-v2.sdl.yaml"),
  manifest: join(PACKAGE_ROOT, "examples", "harness-backend-v2.manifest.json"),
} as const;
/** The public demo control the v2 example's `stochastic_control_ref` names (not a secret). */
export const DEMO_V2_CONTROL = {
  controlId: "green-activity-policy",
  namespace: "green-activity",
  publicSeed: "42".repeat(32),
} as const;

/** Options of `runDemo`. */
export interface DemoOptions {
  readonly storeUrl: string;
  /** The gateway's upstream timeout; the stalled call takes this long. Default 3000. */
  readonly timeoutMs?: number;
  /** Called as each invocation closes, with what its agent saw. */
  readonly onInvocation?: (invocation: DemoInvocation) => void;
  /** Reads the store before the manager closes it (e.g. to draw the timeline). */
  readonly inspect?: (store: ControlPlaneStore) => Promise<void>;
  /** `v1` (default): the evidence-loop example; `v2`: the activity-policy example. */
  readonly profile?: "v1" | "v2";
}

/** One closed invocation of the demo. */
export interface DemoInvocation {
  readonly summary: InvocationSummary;
  readonly run: DemoAgentRun | undefined;
}

/** What the demo did; every figure is recomputable from the store, except the refusals, which leave no record. */
export interface DemoSummary {
  readonly store: string;
  readonly removed_previous_store: boolean;
  readonly invocations: number;
  readonly invocation_states: Record<string, number>;
  readonly tool_actions: Record<string, number>;
  /** Port refusals by code. */
  readonly refusals: Record<string, number>;
  /** Calls the gateway answered itself, without the port, by code. */
  readonly gateway_refusals: Record<string, number>;
  /** Agent runs that exited non-zero or printed no report; 0 when the demo went as scripted. */
  readonly agent_failures: number;
  /** The tools the agent was shown. */
  readonly agent_tools: readonly string[];
  /** Requests the local portal service received, per path. */
  readonly portal_requests: Record<string, number>;
  readonly stopped: readonly { readonly participant: string; readonly reason: string | null }[];
  readonly indeterminate: readonly string[];
}

const MAX_STEPS = 50;

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

function loadModel(path: string): RuntimeModel {
  const { scenario, diagnostics } = loadScenario(path);
  if (hasErrors(diagnostics) || !scenario) {
    const lines = diagnostics.map((d) => formatDiagnostic(d, path));
    throw new Error(`the example scenario does not load:\n${lines.join("\n")}`);
  }
  return compileScenario(scenario);
}

/** Deletes a SQLite store's files; true when there was one. */
function removeSqliteStore(url: string): boolean {
  const file = resolve(sqliteStorePath(url) ?? url);
  const existed = [file, `${file}-wal`, `${file}-shm`, `${file}-journal`].map((path) => {
    try {
      rmSync(path);
      return true;
    } catch {
      return false;
    }
  });
  return existed[0] === true;
}

function active(model: RuntimeModel, schedulers: readonly SchedulerRecord[]): boolean {
  return schedulers.some(
    (s) =>
      s.lifecycle === "running" &&
      (s.activity === undefined || s.activity.lifecycle_state === "running") &&
      s.attempts < (model.autonomousPolicies[s.policyAddress]?.maxActionAttempts ?? 0),
  );
}

/** Runs the example scenario with the demo harness until every scheduler stops or runs out of attempts. */
export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const v2 = options.profile === "v2";
  const files = v2 ? DEMO_V2_FILES : DEMO_FILES;
  const model = loadModel(files.scenario);
  const manifest = JSON.parse(readFileSync(files.manifest, "utf8")) as unknown;
  const removed = options.storeUrl === DEMO_STORE_URL ? removeSqliteStore(DEMO_STORE_URL) : false;
  const portal = await startPortalService();
  const runtime = new DemoHarnessRuntime({
    portalUrl: portal.url,
    mapPath: DEMO_FILES.map,
    // Generous, so that a slow machine never turns an answered probe into a timeout.
    timeoutMs: options.timeoutMs ?? 3000,
  });
  const invocationStates: Record<string, number> = {};
  const toolActions: Record<string, number> = {};
  const refusals: Record<string, number> = {};
  const summaries: InvocationSummary[] = [];
  try {
    const manager = await RuntimeManager.open({
      model,
      manifest,
      runtime,
      store: options.storeUrl,
      ...(v2 ? { stochasticControls: [DEMO_V2_CONTROL] } : {}),
      observer: {
        invocationClosed: (summary) => {
          summaries.push(summary);
          bump(invocationStates, summary.state);
          for (const action of summary.toolActions) bump(toolActions, action.settlement ?? "unsettled");
          const run = runtime.runs.find((r) => r.invocationId === summary.invocationId);
          options.onInvocation?.({ summary, run });
        },
        toolActionRefused: (code) => bump(refusals, code),
      },
    });
    try {
      for (let step = 0; step < MAX_STEPS && active(model, manager.schedulers()); step += 1)
        await manager.step(1);
      await options.inspect?.(manager.store);
      const stopped = manager.schedulers().filter((s) => s.lifecycle === "stopped");
      const indeterminate = summaries.flatMap((s) =>
        s.toolActions.filter((a) => a.settlement === "indeterminate").map((a) => a.id),
      );
      return {
        store: options.storeUrl,
        removed_previous_store: removed,
        invocations: summaries.length,
        invocation_states: invocationStates,
        tool_actions: toolActions,
        refusals,
        gateway_refusals: gatewayRefusals(runtime.runs.flatMap((r) => r.report?.calls ?? [])),
        agent_failures: runtime.runs.filter((r) => r.exitCode !== 0 || r.report === undefined).length,
        agent_tools: runtime.runs[0]?.report?.tools ?? [],
        portal_requests: portal.requests(),
        stopped: stopped.map((s) => ({ participant: s.participantAddress, reason: s.stopReason ?? null })),
        indeterminate,
      };
    } finally {
      await manager.close();
    }
  } finally {
    await portal.close();
  }
}

/** Refused calls the port never saw: the agent's refusals whose code is not a port refusal code. */
function gatewayRefusals(calls: readonly AgentCall[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const call of calls) {
    if (
      call.outcome === "refused" &&
      call.code !== undefined &&
      !(call.code in ParticipantToolActionRefusal)
    ) {
      bump(out, call.code);
    }
  }
  return out;
}
