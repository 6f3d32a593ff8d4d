/**
 * Crash-test child: runs the example on the durable store named on argv with the effect harness,
 * announces every step on stdout, and at the chosen kill point announces `POINT <name>` and blocks
 * until the parent kills it with SIGKILL.
 *
 * argv: STORE_URL EFFECT_FILE KILL_POINT CALL WARMUP_STEPS
 */
import type { ControlPlaneStore } from "../../src/index.js";
import { openControlPlaneStore, RuntimeManager } from "../../src/index.js";
import { CRASH_OWNER, combinedAt, type KillPoint, TOOL_CALLS } from "../crash/kill-points.js";
import { EffectHarnessRuntime, type ToolCallMoment } from "./child-harness.js";
import { exampleManifest, modelWithAttempts } from "./example.js";

const [url = "", effectFile = "", point = "", callText = "1", warmupText = "0"] = process.argv.slice(2);
const killCall = Number(callText);
const say = (line: string) => process.stdout.write(`${line}\n`);

let armed = false;
let inserts = 0;

/** Announces the point and never returns: the parent's SIGKILL is the only way out. */
function killHere(name: KillPoint): Promise<never> {
  say(`POINT ${name}`);
  setInterval(() => undefined, 1 << 30);
  return new Promise<never>(() => undefined);
}

const MOMENT_POINT: Partial<Record<ToolCallMoment, KillPoint>> = {
  admitted: "after-admit",
  dispatched: "after-dispatch",
  effect: "during-tool",
  completed: "after-complete",
};

/** The real store, with the claim write and the close commit able to stop at a kill point. */
function withKillPoints(inner: ControlPlaneStore): ControlPlaneStore {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property === "insertToolAction") {
        return async (...args: unknown[]) => {
          const call = armed ? ++inserts : 0;
          const before = point === "admit-write-before" || point === "combined-write-before";
          const after = point === "admit-write-after" || point === "combined-write-after";
          if (call === killCall && before) await killHere(point);
          await value.apply(target, args);
          if (call === killCall && after) await killHere(point);
        };
      }
      if (property === "commitInvocation") {
        return async (...args: unknown[]) => {
          if (armed && point === "commit-before") await killHere(point);
          await value.apply(target, args);
        };
      }
      return (...args: unknown[]) => value.apply(target, args);
    },
  });
}

const combined = combinedAt(point);
// A combined step's receipt is the moment the dispatch is known, as the receipt of dispatch is.
const momentPoint = (moment: ToolCallMoment) =>
  combined && moment === "dispatched" ? "combined-after" : MOMENT_POINT[moment];

const runtime = new EffectHarnessRuntime({
  effectFile,
  toolCalls: TOOL_CALLS,
  combined,
  at: async (moment, id, call) => {
    say(`${moment.toUpperCase()} ${id}`);
    if (armed && call === killCall && momentPoint(moment) === point) await killHere(point as KillPoint);
  },
  refused: ({ step, refusal, actionId }) => {
    say(`REFUSED ${step} ${refusal} ${actionId ?? "-"}`);
  },
});

try {
  const store = withKillPoints(await openControlPlaneStore(url));
  const manager = await RuntimeManager.open({
    model: modelWithAttempts(1_000),
    manifest: exampleManifest(),
    runtime,
    store,
    ownerId: CRASH_OWNER,
  });
  for (let i = 0; i < Number(warmupText); i += 1) {
    const { invocations } = await manager.step();
    say(`WARMUP ${invocations.map((s) => `${s.invocationId}=${s.state}`).join(" ")}`);
  }
  armed = true;
  say("ARMED");
  const { invocations } = await manager.step();
  say(`UNEXPECTED-END ${invocations.map((s) => `${s.invocationId}=${s.state}`).join(" ")}`);
  process.exit(3);
} catch (error) {
  say(`FAILED ${error instanceof Error ? error.stack : String(error)}`.replaceAll("\n", " | "));
  process.exit(2);
}
