import { approvalsLapsed, listOperatorWaits, OperatorNeed } from "../operations/index.js";
import {
  type ApprovalRecord,
  type OperationEntry,
  type ParticipantServiceRecord,
  serviceReadback,
} from "../records/index.js";
import type { ControlPlaneStore, SchedulerRecord } from "../store/index.js";
import { CONSOLE_ACTIONS, participantActions, waitActions } from "./actions.js";
import type { ChainView, ChainWatch } from "./chain.js";

/** How many rows each list of the page holds at most: every read is bounded, whatever the store holds. */
export const SHOWN = {
  /** Operations waiting for an operator, newest first. */
  waits: 100,
  /** Participants, by address. */
  participants: 200,
  /** The newest operations. */
  operations: 50,
} as const;

/** A bounded list: its first rows, and whether more exist than it holds. */
export interface Shown<T> {
  readonly items: readonly T[];
  readonly more: boolean;
}

/** A held call's approval as the page shows it: who decided what and when, never an argument. */
export interface ApprovalView {
  readonly state: string;
  readonly requestedAt: string;
  readonly timeoutSeconds: number;
  /** When a pending approval expires if nobody decides (requested + timeout). */
  readonly expiresAt: string;
  readonly decidedAt?: string;
  readonly operator?: string;
  readonly expiredBy?: string;
}

/** An operation as the page shows it: ids, states and times only (no argument or result is stored). */
export interface OperationView {
  readonly id: string;
  readonly kind: string;
  readonly participant: string;
  readonly state: string;
  readonly settlement?: string;
  readonly tool?: string;
  readonly withheldReason?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly resolution?: {
    readonly resolution: string;
    readonly operator?: string;
    readonly resolvedAt: string;
  };
  readonly approval?: ApprovalView;
}

/** An operation that waits for a person, what for, and the actions its row offers. */
export interface WaitView extends OperationView {
  readonly need: string;
  readonly actions: readonly string[];
  /**
   * A held call whose approve would be refused (`approvalLapsed`: its timeout passed, or its runtime
   * is gone): why, in `raes operations --needs-operator`'s words. Its row offers no Approve.
   */
  readonly lapsed?: { readonly code: string; readonly message: string };
}

/** A participant: its schedulers, its history's extent and chain, and the actions its row offers. */
export interface ParticipantView {
  readonly address: string;
  readonly schedulers: readonly {
    readonly policy: string;
    readonly lifecycle: string;
    readonly stopReason?: string;
    readonly attempts: number;
    readonly updatedAt: string;
  }[];
  /** Its execution service (docs/guide/operations.md), when a runtime scheduled it. */
  readonly service?: {
    readonly lifecycle: string;
    readonly desired: string;
    /** The generation a control from this page names (RAES's fence). */
    readonly generation: number;
    readonly acceptingNewWork: boolean;
    /** RAES's health: `degraded` once pacing was lost under its policy (the stored deviations joined in). */
    readonly health: string;
    readonly updatedAt: string;
  };
  /** Invocations running now (or left open by a run that died). */
  readonly open: number;
  readonly events: number;
  /** The sequence of its last event (0: none): the page reloads its timeline when this moves. */
  readonly headSequence: number;
  readonly chain: ChainView;
  readonly actions: readonly string[];
}

/** Everything the console page shows, as one JSON value pushed to each open page when it changes. */
export interface ConsoleState {
  readonly store: string;
  readonly operator: string;
  readonly waits: Shown<WaitView>;
  readonly participants: Shown<ParticipantView>;
  readonly operations: Shown<OperationView>;
  /** The operator chain: every approve, deny, resolve, resume and execution-control decision. */
  readonly decisions: ChainView & { readonly recorded: number };
  /** The store as `raes verify --store` checks it: broken exactly when that command exits 1, with its failure line. */
  readonly evidence: ChainView;
  /** Each action's button text, by name. */
  readonly actions: Readonly<Record<string, string>>;
  /** The question the page asks before sending an action that cannot be undone, by name. */
  readonly confirms: Readonly<Record<string, string>>;
}

function approvalView(approval: ApprovalRecord): ApprovalView {
  const requested = Date.parse(approval.requestedAt);
  return {
    state: approval.state,
    requestedAt: approval.requestedAt,
    timeoutSeconds: approval.timeoutSeconds,
    expiresAt: Number.isNaN(requested)
      ? ""
      : new Date(requested + approval.timeoutSeconds * 1000).toISOString(),
    ...(approval.decidedAt === undefined ? {} : { decidedAt: approval.decidedAt }),
    ...(approval.operator === undefined ? {} : { operator: approval.operator }),
    ...(approval.expiredBy === undefined ? {} : { expiredBy: approval.expiredBy }),
  };
}

function operationView(entry: OperationEntry): OperationView {
  return {
    id: entry.id,
    kind: entry.kind,
    participant: entry.participantAddress,
    state: entry.state,
    ...(entry.settlement === undefined ? {} : { settlement: entry.settlement }),
    ...(entry.toolName === undefined ? {} : { tool: entry.toolName }),
    ...(entry.withheldReason === undefined ? {} : { withheldReason: entry.withheldReason }),
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    ...(entry.resolution === undefined
      ? {}
      : {
          resolution: {
            resolution: entry.resolution.resolution,
            ...(entry.resolution.operator === undefined ? {} : { operator: entry.resolution.operator }),
            resolvedAt: entry.resolution.resolvedAt,
          },
        }),
    ...(entry.approval === undefined ? {} : { approval: approvalView(entry.approval) }),
  };
}

function shown<T>(rows: readonly T[], limit: number): Shown<T> {
  return { items: rows.slice(0, limit), more: rows.length > limit };
}

/**
 * Reads the console's state: what waits for an operator, the participants with their schedulers and
 * chains, the newest operations. Each list reads one row more than it shows, to say whether more exist.
 * `chains` receives the heads read, so it rechecks when one moved.
 */
export async function readConsoleState(
  store: ControlPlaneStore,
  context: { readonly storeLabel: string; readonly operator: string; readonly chains: ChainWatch },
): Promise<ConsoleState> {
  const [waits, operations, schedulers, heads, decisionHead, open, services] = await Promise.all([
    listOperatorWaits(store, { limit: SHOWN.waits + 1 }),
    store.listOperations({ limit: SHOWN.operations + 1 }),
    store.listSchedulers(),
    store.listChainHeads(),
    store.getDecisionHead(),
    store.listOpenInvocations(),
    store.listParticipantServices(),
  ]);
  // Few: one per participant and clock generation whose pacing was lost.
  const deviations = await store.listPacingDeviations();
  // Each held call shown is asked whether its approve would still run it, each runtime once.
  const waitsShown = waits.slice(0, SHOWN.waits);
  const lapses = await approvalsLapsed(
    store,
    waitsShown.filter((w) => w.need === OperatorNeed.pending_approval).map((w) => w.entry),
  );
  const waitViews: WaitView[] = [];
  for (const w of waitsShown) {
    const lapsed = lapses.get(w.entry.id);
    waitViews.push({
      ...operationView(w.entry),
      need: w.need,
      actions: waitActions(w.need, lapsed !== undefined),
      ...(lapsed === undefined ? {} : { lapsed: { code: lapsed.code, message: lapsed.message } }),
    });
  }
  context.chains.observe(heads, decisionHead);
  const byParticipant = new Map<string, SchedulerRecord[]>();
  for (const s of schedulers)
    byParticipant.set(s.participantAddress, [...(byParticipant.get(s.participantAddress) ?? []), s]);
  const headOf = new Map(heads.map((h) => [h.participant_address, h]));
  const openOf = new Map<string, number>();
  for (const i of open) openOf.set(i.participantAddress, (openOf.get(i.participantAddress) ?? 0) + 1);
  const serviceOf = new Map<string, ParticipantServiceRecord>(services.map((r) => [r.participantAddress, r]));
  const addresses = [...new Set([...byParticipant.keys(), ...headOf.keys(), ...serviceOf.keys()])].sort();
  const participants: ParticipantView[] = addresses.slice(0, SHOWN.participants + 1).map((address) => {
    const records = byParticipant.get(address) ?? [];
    const head = headOf.get(address);
    const record = serviceOf.get(address);
    // The readback: an abandoned drain put back, and the pacing losses joined (`serviceReadback`).
    const service =
      record === undefined
        ? undefined
        : {
            ...record,
            service: serviceReadback(
              record,
              deviations.filter((d) => d.participantAddress === address),
              Date.now(),
            ),
          };
    return {
      address,
      schedulers: records.map((r) => ({
        policy: r.policyAddress,
        lifecycle: r.lifecycle,
        ...(r.stopReason === undefined ? {} : { stopReason: r.stopReason }),
        attempts: r.attempts,
        updatedAt: r.updatedAt,
      })),
      ...(service === undefined
        ? {}
        : {
            service: {
              lifecycle: service.service.observed_lifecycle,
              desired: service.service.desired_lifecycle,
              generation: service.service.generation,
              acceptingNewWork: service.service.accepting_new_work,
              health: service.service.health,
              updatedAt: service.updatedAt,
            },
          }),
      open: openOf.get(address) ?? 0,
      events: head?.events ?? 0,
      headSequence: head?.head_sequence ?? 0,
      chain: context.chains.participant(address),
      actions: participantActions(
        records.map((r) => r.lifecycle),
        service === undefined
          ? undefined
          : { lifecycle: service.service.observed_lifecycle, allowed: service.controlActions },
      ),
    };
  });
  return {
    store: context.storeLabel,
    operator: context.operator,
    waits: { items: waitViews, more: waits.length > SHOWN.waits },
    participants: shown(participants, SHOWN.participants),
    operations: shown(operations.map(operationView), SHOWN.operations),
    decisions: { ...context.chains.decisions(), recorded: decisionHead.decisions },
    evidence: context.chains.store(),
    actions: Object.fromEntries(Object.entries(CONSOLE_ACTIONS).map(([name, a]) => [name, a.label])),
    confirms: Object.fromEntries(
      Object.entries(CONSOLE_ACTIONS).flatMap(([name, a]) =>
        a.confirm === undefined ? [] : [[name, a.confirm]],
      ),
    ),
  };
}
