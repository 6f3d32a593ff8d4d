import {
  OperatorError,
  OperatorNeed,
  ResolutionError,
  resolveToolAction,
  resumeStoredParticipant,
  ToolActionResolution,
} from "../operations/index.js";
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
  /** Participant actions: the scheduler lifecycles that show the button. */
  readonly lifecycles?: readonly SchedulerLifecycle[];
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

/**
 * Every console action by name, in the order the page shows their buttons. A new action is one entry
 * here: the endpoint, the button and where it shows all follow from it.
 */
export const CONSOLE_ACTIONS: Readonly<Record<string, ConsoleAction>> = {
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
  // TODO(lead, after merging h/approvals and h/control): give these four their `run`, and approve/deny
  // their `need` (the approval member of OperatorNeed):
  //   approve: ({ store, operator, note }, id) => approveToolAction(store, id, { operator, note })
  //   deny:    ({ store, operator, note }, id) => denyToolAction(store, id, { operator, note })
  //   pause / reset: the execution-control functions of src/operations, with { operator, note }.
  // Until then each answers serve.action-unavailable (501) and shows no button.
  approve: { label: "Approve", subject: ActionSubject.tool_action },
  deny: { label: "Deny", subject: ActionSubject.tool_action },
  pause: { label: "Pause", subject: ActionSubject.participant, lifecycles: ["running"] },
  reset: { label: "Reset", subject: ActionSubject.participant, lifecycles: ["stopped", "completed"] },
};

/** The names of the actions a waiting tool action's row offers. */
export function waitActions(need: string): string[] {
  return Object.entries(CONSOLE_ACTIONS)
    .filter(([, a]) => a.run !== undefined && a.subject === ActionSubject.tool_action && a.need === need)
    .map(([name]) => name);
}

/** The names of the actions a participant's row offers, given its schedulers' lifecycles. */
export function participantActions(lifecycles: readonly SchedulerLifecycle[]): string[] {
  return Object.entries(CONSOLE_ACTIONS)
    .filter(
      ([, a]) =>
        a.run !== undefined &&
        a.subject === ActionSubject.participant &&
        (a.lifecycles ?? []).some((l) => lifecycles.includes(l)),
    )
    .map(([name]) => name);
}
