/**
 * v3 shared-pool child: one `RuntimeManager` process of two on one store. It opens the two-participant
 * images run-limit example scheduling only the INDEX-th participant (0 or 1) of its policy, so each process
 * runs its own participant under the same policy, budgets and pools. It announces `READY`, waits for `go`
 * on stdin (so both processes step at once), runs STEPS advances and announces `CALLS <json ids>`: the
 * action ids its native runtime ran.
 *
 * argv: STORE_URL OWNER_ID STEPS INDEX
 */
import { createInterface } from "node:readline";
import {
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  RuntimeManager,
} from "../../src/index.js";
import { MeasuringRuntime, twoParticipantModel, v3Manifest } from "../runtime/v3/harness.js";

/** The two-participant model with each policy scheduling only its INDEX-th participant. */
function oneParticipant(index: number) {
  const model = twoParticipantModel();
  const policies = Object.fromEntries(
    Object.entries(model.autonomousPolicies).map(([k, p]) => [
      k,
      { ...p, participantAddresses: p.participantAddresses.slice(index, index + 1) },
    ]),
  );
  return { ...model, autonomousPolicies: policies };
}

const [url = "", owner = "", stepsText = "0", indexText = "0"] = process.argv.slice(2);
const say = (line: string) => process.stdout.write(`${line}\n`);

/** Measures at the reservation, and stays in flight over a few turns of the event loop. */
class SlowRuntime extends MeasuringRuntime {
  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { readonly episodeId: string },
  ): Promise<ParticipantActionResult> {
    for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
    return super.modelAction(request, snapshot, context);
  }
}

try {
  const runtime = new SlowRuntime(1_000_000);
  const manager = await RuntimeManager.open({
    model: oneParticipant(Number(indexText)),
    manifest: v3Manifest(),
    runtime,
    store: url,
    ownerId: owner,
    log: () => undefined,
    stochasticControls: [
      { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: "42".repeat(32) },
    ],
  });
  say("READY");
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) if (line.trim() === "go") break;
  for (let step = 0; step < Number(stepsText); step += 1) await manager.step(1);
  say(`CALLS ${JSON.stringify(runtime.seen)}`);
  await manager.close();
  process.exit(0);
} catch (error) {
  say(`FAILED ${error instanceof Error ? error.stack : String(error)}`.replaceAll("\n", " | "));
  process.exit(2);
}
