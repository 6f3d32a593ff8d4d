import {
  type ApprovalOutcome,
  approveToolAction,
  controlParticipant,
  denyToolAction,
  OperatorError,
  OperatorNeed,
  ResolutionError,
  resolveToolAction,
  resumeStoredParticipant,
  ToolActionResolution,
} from "../operations/index.js";
import { ExecutionControlAction, type ExecutionLifecycle } from "../records/index.js";
import type { ControlPlaneStore, SchedulerLifecycle } from "../store/index.js";

/** What a console action acts on: a tool action (by its full id) or a participant (by its address). */
export const ActionSubject = {
  tool_action: "tool_action",
  participant: "participant",
} as const;
/** An action subject. */
export type ActionSubject = (typeof ActionSubject)[keyof typeof ActionSubject];

/** Who decides and why: recorded with the decision. */
export interface ActionContext {
  readonly store: ControlPlaneStore;
  readonly operator: string;
  readonly note: string;
  /** Execution controls: the service generation the page showed (RAES's fence); absent, the current one. */
  readonly generation?: number;
}

/** What an action did: its answer for the page, or a refusal with its stable code (nothing changed). */
export type ActionOutcome =
  | { readonly ok: true; readonly answer: unknown }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly detail?: unknown };

/** Carries an action out on its subject. */
export type RunAction = (context: ActionContext, subject: string) => Promise<ActionOutcome>;

/** One button of the console, and the endpoint `POST /api/actions/NAME` behind it. */
export interface ConsoleAction {
  /** The button's text. */
  readonly label: string;
  readonly subject: ActionSubject;
  /** Tool-action actions: the operator need whose rows show the button. */
  readonly need?: string;
  /**
   * Held-call actions: not offered once the call's approval lapsed (`approvalLapsed`: its timeout
   * passed, or its runtime is gone), since it would be refused.
   */
  readonly lapses?: boolean;
  /** Participant actions: the scheduler lifecycles that show the button. */
  readonly lifecycles?: readonly SchedulerLifecycle[];
  /**
   * Participant actions: the execution service's observed lifecycles that show the button (only when
   * the runtime's manifest allows the control). The page sends the generation it showed.
   */
  readonly service?: {
    readonly control: ExecutionControlAction;
    readonly from: readonly ExecutionLifecycle[];
  };
  /** A question the page asks before sending it (an action that cannot be undone). */
  readonly confirm?: string;
  /** Carries the action out; absent while this build cannot (`serve.action-unavailable`, no button). */
  readonly run?: RunAction;
}

/** A refusal an operations function threw (its code is stable and nothing was recorded), else rethrown. */
function refused(error: unknown): ActionOutcome {
  if (error instanceof ResolutionError || error instanceof OperatorError)
    return { ok: false, code: error.code, message: error.message };
  throw error;
}

function resolve(resolution: ToolActionResolution): RunAction {
  return async ({ store, operator, note }, id) => {
    try {
      const operation = await resolveToolAction(store, id, { resolution, note, operator });
      return {
        ok: true,
        answer: { id: operation.id, state: operation.state, resolution: operation.resolution },
      };
    } catch (error) {
      return refused(error);
    }
  };
}

/** Approve or deny (docs/guide/approvals.md): a repeat of the same decision answers `already-…`, nothing new recorded. */
function decide(
  decision: (
    store: ControlPlaneStore,
    id: string,
    input: { operator: string; note: string },
  ) => Promise<ApprovalOutcome>,
): RunAction {
  return async ({ store, operator, note }, id) => {
    const answer = await decision(store, id, { operator, note });
    if (answer.outcome === "refused") return { ok: false, code: answer.code, message: answer.message };
    return {
      ok: true,
      answer: { outcome: answer.outcome, id: answer.operation.id, state: answer.operation.state },
    };
  };
}

/** How long a drain from the console waits for the participant's open invocations (RAES's drain timeout). */
const DRAIN_TIMEOUT_MS = 10_000;

/** An execution control (docs/guide/operations.md, "Controlling one participant"), fenced by the page's generation. */
function control(action: ExecutionControlAction, from: readonly ExecutionLifecycle[]) {
  const run: RunAction = async ({ store, operator, note, generation }, participant) => {
    try {
      const outcome = await controlParticipant(store, {
        participant,
        action,
        operator,
        note,
        drainTimeoutMs: DRAIN_TIMEOUT_MS,
        ...(generation === undefined ? {} : { expectedGeneration: generation }),
      });
      if (!outcome.ok)
        return {
          ok: false,
          code: outcome.code,
          message: outcome.message,
          ...(outcome.service === undefined
            ? {}
            : {
                detail: {
                  lifecycle: outcome.service.observed_lifecycle,
                  generation: outcome.service.generation,
                },
              }),
        };
      return {
        ok: true,
        answer: {
          lifecycle: outcome.service.observed_lifecycle,
          generation: outcome.service.generation,
        },
      };
    } catch (error) {
      return refused(error);
    }
  };
  return { subject: ActionSubject.participant, service: { control: action, from }, run };
}

/**
 * Every console action by name, in the order the page shows their buttons. A new action is one entry
 * here: the endpoint, the button and where it shows all follow from it.
 */
export const CONSOLE_ACTIONS: Readonly<Record<string, ConsoleAction>> = {
  approve: {
    label: "Approve",
    subject: ActionSubject.tool_action,
    need: OperatorNeed.pending_approval,
    lapses: true,
    run: decide(approveToolAction),
  },
  deny: {
    label: "Deny",
    subject: ActionSubject.tool_action,
    need: OperatorNeed.pending_approval,
    run: decide(denyToolAction),
  },
  "resolve-effect-confirmed": {
    label: "Effect confirmed",
    subject: ActionSubject.tool_action,
    need: OperatorNeed.resolution,
    run: resolve(ToolActionResolution.effect_confirmed),
  },
  "resolve-effect-absent": {
    label: "Effect absent",
    subject: ActionSubject.tool_action,
    need: OperatorNeed.resolution,
    run: resolve(ToolActionResolution.effect_absent),
  },
  resume: {
    label: "Resume now",
    subject: ActionSubject.participant,
    lifecycles: ["stopped"],
    run: async ({ store, operator, note }, participant) => {
      const answer = await resumeStoredParticipant(store, participant, { operator, note });
      if ("error" in answer) {
        const { error, message, ...detail } = answer;
        return { ok: false, code: error, message, detail };
      }
      return { ok: true, answer };
    },
  },
  "execution-start": { label: "Start", ...control(ExecutionControlAction.start, ["stopped"]) },
  "execution-pause": { label: "Pause", ...control(ExecutionControlAction.pause, ["running"]) },
  "execution-resume": { label: "Resume", ...control(ExecutionControlAction.resume, ["paused"]) },
  "execution-drain": {
    label: "Drain",
    ...control(ExecutionControlAction.drain, ["running", "paused", "draining"]),
  },
  "execution-reset": { label: "Reset", ...control(ExecutionControlAction.reset, ["quiescent"]) },
  "execution-teardown": {
    label: "Tear down",
    confirm: "Tear this participant's execution service down for good? It cannot be started again.",
    ...control(ExecutionControlAction.teardown, ["quiescent"]),
  },
};

/**
 * The names of the actions a waiting tool action's row offers; `lapsed`: a held call whose approve
 * would be refused, offered its deny only (as `raes operations --needs-operator` prints it).
 */
export function waitActions(need: string, lapsed = false): string[] {
  return Object.entries(CONSOLE_ACTIONS)
    .filter(
      ([, a]) =>
        a.run !== undefined &&
        a.subject === ActionSubject.tool_action &&
        a.need === need &&
        !(lapsed && a.lapses === true),
    )
    .map(([name]) => name);
}

/** A participant's execution service as the buttons need it: its lifecycle and the controls its manifest allows. */
export interface ServiceControls {
  readonly lifecycle: ExecutionLifecycle;
  readonly allowed: readonly ExecutionControlAction[];
}

/** The names of the actions a participant's row offers, given its schedulers' lifecycles and its service. */
export function participantActions(
  lifecycles: readonly SchedulerLifecycle[],
  service?: ServiceControls,
): string[] {
  return Object.entries(CONSOLE_ACTIONS)
    .filter(([, a]) => {
      if (a.run === undefined || a.subject !== ActionSubject.participant) return false;
      const control = a.service;
      if (control !== undefined)
        return (
          service?.allowed.includes(control.control) === true && control.from.includes(service.lifecycle)
        );
      return (a.lifecycles ?? []).some((l) => lifecycles.includes(l));
    })
    .map(([name]) => name);
}
