/**
 * Ownership-test child: one runtime process on a shared PostgreSQL schema that steps the example
 * periodically and reports after every step whether it owns the participant's scheduler.
 *
 * argv: STORE_URL EFFECT_FILE OWNER_ID LEASE_TTL_MS STEP_INTERVAL_MS|manual
 * stdin: ARM (the next tool call announces `POINT after-dispatch` and waits for GO), GO,
 *        RESUME (resumeParticipant), STEP (one step, in manual mode), EXIT.
 */
import { createInterface } from "node:readline";
import { RuntimeManager } from "../../src/index.js";
import { EffectHarnessRuntime } from "./child-harness.js";
import { EXAMPLE, exampleManifest, modelWithAttempts } from "./example.js";

const [url = "", effectFile = "", ownerId = "", ttlText = "", intervalText = ""] = process.argv.slice(2);
const say = (line: string) => process.stdout.write(`${line}\n`);
const errorLine = (error: unknown) => {
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  return `${name ?? "Error"} ${code ?? "-"} ${String(message ?? error).replaceAll("\n", " | ")}`;
};

let armed = false;
let release: (() => void) | undefined;
let exiting = false;
const manual = intervalText === "manual";
let wakeStep: (() => void) | undefined;
const nextTurn = () =>
  manual
    ? new Promise<void>((resolve) => {
        wakeStep = resolve;
      })
    : new Promise<void>((resolve) => setTimeout(resolve, Number(intervalText)));

const runtime = new EffectHarnessRuntime({
  effectFile,
  toolCalls: 1,
  at: async (moment, id) => {
    say(`${moment.toUpperCase()} ${id}`);
    if (moment !== "dispatched" || !armed) return;
    armed = false;
    say("POINT after-dispatch");
    await new Promise<void>((resolve) => {
      release = resolve;
    });
  },
  refused: ({ step, refusal, actionId }) => {
    say(`REFUSED ${step} ${refusal} ${actionId ?? "-"}`);
  },
});

const manager = await RuntimeManager.open({
  model: modelWithAttempts(100_000),
  manifest: exampleManifest(),
  runtime,
  store: url,
  ownerId,
  leaseTtlMs: Number(ttlText),
});
const owned = () => manager.schedulers().filter((s) => s.participantAddress === EXAMPLE.participant);
say(`OPENED owned=${owned().length}`);

createInterface({ input: process.stdin }).on("line", (command) => {
  if (command === "ARM") armed = true;
  if (command === "GO") release?.();
  if (command === "RESUME") {
    manager.resumeParticipant(EXAMPLE.participant).then(
      () => say("RESUMED"),
      (error: unknown) => say(`RESUME-ERROR ${errorLine(error)}`),
    );
  }
  if (command === "STEP") wakeStep?.();
  if (command === "EXIT") {
    exiting = true;
    wakeStep?.();
  }
});

if (manual) await nextTurn();
while (!exiting) {
  try {
    const { invocations } = await manager.step();
    const mine = owned();
    const done = invocations.map((s) => `${s.invocationId}=${s.state}`).join(",") || "none";
    say(`STEP owned=${mine.length} lifecycle=${mine[0]?.lifecycle ?? "-"} invocations=${done}`);
  } catch (error) {
    say(`STEP-ERROR ${errorLine(error)}`);
  }
  await nextTurn();
}
await manager.close();
say("CLOSED");
process.exit(0);
