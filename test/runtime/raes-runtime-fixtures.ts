import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  compileScenario,
  type HistoryEvent,
  loadScenario,
  type ParticipantActionRequest,
  type ParticipantActionResult,
  type ParticipantSnapshot,
  ReferenceAutonomousParticipantRuntime,
  type RuntimeModel,
} from "../../src/index.js";
import { EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";

/** Where tools/record-raes-runtime.py writes what RAES did. */
export const RAES_RUNTIME_FIXTURES = join(ROOT, "test", "fixtures", "raes-runtime");

/** One native attempt RAES made. */
export interface RaesAttempt {
  readonly participant_address: string;
  readonly action_instance_id: string;
  readonly episode_id: string;
  readonly observation_point: string;
  readonly execution_generation: number;
}

/** One RAES operation (apply, advance, reset, run_due) and what it left behind. */
export interface RaesOperation {
  readonly op: "apply" | "advance" | "reset" | "run_due";
  readonly clock: { readonly segment: number; readonly tick: number };
  readonly attempts: readonly RaesAttempt[];
  readonly schedulers: Readonly<
    Record<string, { readonly lifecycle_state: string; readonly attempted_actions: number }>
  >;
}

/** A recorded RAES run. */
export interface RaesRun {
  readonly case: string;
  readonly policy_address: string;
  readonly participants: readonly string[];
  readonly operations: readonly RaesOperation[];
  readonly history: Readonly<Record<string, readonly Record<string, unknown>[]>>;
}

/** The recorded cases: the example itself, a later cadence start, two participants. */
export const RAES_CASES = ["example", "later-start", "two-participants"] as const;

/** The fixture of one case. */
export function raesRun(name: (typeof RAES_CASES)[number]): RaesRun {
  return JSON.parse(readFileSync(join(RAES_RUNTIME_FIXTURES, `${name}.json`), "utf8")) as RaesRun;
}

const models = new Map<string, RuntimeModel>();

/** The compiled scenario RAES ran for this case (variants are stored next to their fixture). */
export function raesCaseModel(name: (typeof RAES_CASES)[number]): RuntimeModel {
  const cached = models.get(name);
  if (cached) return cached;
  const path = name === "example" ? EXAMPLE_SCENARIO : join(RAES_RUNTIME_FIXTURES, `${name}.sdl.yaml`);
  const { scenario, diagnostics } = loadScenario(path);
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || !scenario) throw new Error(`${name} does not load: ${JSON.stringify(errors)}`);
  const model = compileScenario(scenario);
  models.set(name, model);
  return model;
}

/**
 * RAES's DSL-437 native test runtime, as a raes-ts harness: implementation green-worker 1.0.0, every
 * action succeeds at once with the observation "customer portal responded"; it records each request.
 */
export class RaesNativeRuntime extends ReferenceAutonomousParticipantRuntime {
  readonly implementationIdentity = { name: "green-worker", version: "1.0.0" } as const;
  readonly requests: ParticipantActionRequest[] = [];

  /** The example manifest claims the tool-action composition; this runtime makes no tool calls. */
  attachInvocationToolActions(): void {}

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    { episodeId }: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    this.requests.push(request);
    return this.nativeExecution(request, snapshot, episodeId, {
      status: "succeeded",
      observations: ["customer portal responded"],
    });
  }
}

/**
 * RAES's outer id for a raes-ts one. raes-ts keeps counting n across resets (a documented
 * difference, so ids stay unique in the store); RAES restarts n in every clock segment.
 */
export function raesIdTranslator(run: RaesRun): (raesTsId: string) => string {
  const map = new Map<string, string>();
  for (const participant of run.participants) {
    const attempts = run.operations.flatMap((o) =>
      o.attempts.filter((a) => a.participant_address === participant),
    );
    attempts.forEach((a, n) => {
      map.set(`${run.policy_address}:${participant}:${n}`, a.action_instance_id);
    });
  }
  return (id) => map.get(id) ?? id;
}

/** raes-ts's own event fields, which RAES does not have. */
export const RAES_TS_EXTRA_FIELDS = [
  "event_id",
  "sequence",
  "chain_digest",
  "execution_scope_ref",
  "execution_generation",
  "invocation_tool_context",
] as const;

/**
 * An event as the differential compares it: raes-ts's extra fields dropped, the timestamp reduced to
 * its format, post-state digests to their algorithm (each side digests its own state), ids in RAES's counting.
 */
export function comparable(
  event: HistoryEvent | Readonly<Record<string, unknown>>,
  translate: (id: string) => string = (id) => id,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...event };
  for (const field of RAES_TS_EXTRA_FIELDS) delete out[field];
  const timestamp = out.timestamp;
  out.timestamp =
    typeof timestamp === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(timestamp)
      ? "<microsecond ISO-8601 UTC>"
      : `<bad timestamp ${String(timestamp)}>`;
  if (typeof out.post_state_digest === "string")
    out.post_state_digest = out.post_state_digest.replace(/^(sha256:)[0-9a-f]{64}$/, "$1<digest>");
  if (typeof out.action_instance_id === "string") out.action_instance_id = translate(out.action_instance_id);
  const result = out.action_result as Record<string, unknown> | undefined;
  if (result && typeof result.action_instance_id === "string")
    out.action_result = { ...result, action_instance_id: translate(result.action_instance_id) };
  return out;
}
