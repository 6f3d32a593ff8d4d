/** One interactive-access binding of a participant, its refs resolved through the ref index. */
export interface CompiledInteractiveAccess {
  readonly accessId: string;
  readonly targetRef: string;
  /** The VM the target ref names; `""` when the ref does not resolve to exactly one address. */
  readonly targetAddress: string;
  /** `ssh` or `rdp`. */
  readonly channel: string;
  /** `""` when not authored. */
  readonly accountRef: string;
  /** `""` when not authored or not resolved. */
  readonly accountAddress: string;
}

/** A participant (`participant.behavior.<agent>`). */
export interface CompiledParticipant {
  readonly address: string;
  readonly agent: string;
  readonly entity?: string;
  readonly role?: string;
  readonly actionContractAddresses: readonly string[];
  readonly observationBoundaryAddresses: readonly string[];
  /** RAES's fields: the agent's name (twice, as RAES writes it), its authored entity and refs. */
  readonly name: string;
  readonly participantName: string;
  readonly entityName: string;
  readonly startingAccountRefs: readonly string[];
  /** The starting accounts that name a declared account, distinct. */
  readonly startingAccountAddresses: readonly string[];
  /** What the agent knows at the start: known hosts, subnets, services and accounts, distinct. */
  readonly initialKnowledgeAddresses: readonly string[];
  readonly startingAssertionRefs: readonly string[];
  /** `evaluation.assertion.<ref>` for each starting assertion, as authored. */
  readonly startingAssertionAddresses: readonly string[];
  readonly authorityAnchorRefs: readonly string[];
  /** The anchors the ref index resolves (entities and relationships have no address). */
  readonly authorityAnchorAddresses: readonly string[];
  readonly operatingScopeRefs: readonly string[];
  readonly operatingScopeAddresses: readonly string[];
  /** Sorted by access id. */
  readonly interactiveAccess: readonly CompiledInteractiveAccess[];
  readonly interpretationMode: "role-neutral-projection";
  readonly orderingDependencies: readonly string[];
  /** As RAES: actions, boundaries, accounts, knowledge, assertions, anchors, scope, then interactive-access targets and accounts, distinct. */
  readonly refreshDependencies: readonly string[];
}
