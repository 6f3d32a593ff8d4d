/** One authored view rule of an observation boundary. */
export interface CompiledViewRule {
  readonly informationRef: string;
  readonly disposition: string;
}

/** One authored view transition, every field written (`null` where the optional ones are not authored). */
export interface CompiledViewTransition {
  readonly transitionId: string;
  readonly transitionKind: string;
  readonly informationRef: string;
  readonly trigger: string;
  readonly effectiveFrom: string;
  readonly effectiveOrder: number;
  readonly historyEventType: string;
  readonly actionInstanceId: string | null;
  readonly fromDisposition: string;
  readonly toDisposition: string;
  readonly disclosureRule: string | null;
  readonly evidenceRefs: readonly string[];
  readonly certainty: string;
  readonly latencyProfile: string;
  readonly realizedBackendDisclosure: string | null;
}

/** The view relation at one point of a boundary's timeline: each ref's disposition, and the refs by disposition (sorted). */
export interface CompiledViewRelationSnapshot {
  /** `initial` for the state before any transition. */
  readonly transitionId: string;
  readonly effectiveFrom: string;
  /** -1 for the initial state. */
  readonly effectiveOrder: number;
  /** Information ref → disposition, keys sorted and written as authored. */
  readonly viewRelation: Readonly<Record<string, string>>;
  /** Refs whose disposition lets the participant see them: observable, discovered, inferred, disclosed, deceptive. */
  readonly visibleRefs: readonly string[];
  readonly hiddenRefs: readonly string[];
  readonly evidenceOnlyRefs: readonly string[];
  readonly disclosedRefs: readonly string[];
  readonly discoveredRefs: readonly string[];
  readonly inferredRefs: readonly string[];
  readonly concealedRefs: readonly string[];
  readonly deceptiveRefs: readonly string[];
  /** The transition that made this state; absent from the initial state. */
  readonly transitionKind?: string;
  readonly informationRef?: string;
  readonly historyEventType?: string;
  /** `""` for an `episode_close` transition. */
  readonly actionInstanceId?: string;
}

/** An observation boundary with its declared refs and the evidence a tool outcome may carry. */
export interface CompiledObservationBoundary {
  readonly address: string;
  readonly name: string;
  /** Every ref the boundary declares (observable, hidden, evidence), as authored. */
  readonly declaredRefs: readonly string[];
  readonly evidenceRefs: readonly string[];
  readonly viewRules: readonly CompiledViewRule[];
  /** Declared evidence refs whose view rule is not `hidden`: the only evidence an outcome may cite. */
  readonly outcomeEvidenceRefs: readonly string[];
  /** RAES's fields, as authored (`realized_view_disclosure` is `""` when not authored). */
  readonly boundaryName: string;
  readonly projectionBasis: string;
  readonly observableRefs: readonly string[];
  readonly hiddenRefs: readonly string[];
  /** The initial view relation's refs of each disposition, sorted (RAES writes these six). */
  readonly disclosedRefs: readonly string[];
  readonly evidenceOnlyRefs: readonly string[];
  readonly discoveredRefs: readonly string[];
  readonly inferredRefs: readonly string[];
  readonly concealedRefs: readonly string[];
  readonly deceptiveRefs: readonly string[];
  /** The authored transitions in `effective_order`. */
  readonly viewTransitions: readonly CompiledViewTransition[];
  /** The initial view relation, then the relation after each transition. */
  readonly viewRelationTimeline: readonly CompiledViewRelationSnapshot[];
  readonly realizedViewDisclosure: string;
  readonly orderingDependencies: readonly string[];
  readonly refreshDependencies: readonly string[];
}
