import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { ROOT } from "../helpers/example.js";

const DIST = join(ROOT, "dist", "index.js");
const DIST_TYPES = join(ROOT, "dist", "index.d.ts");

/** Names docs/design.md §7 makes binding, plus the const objects of codes and statuses. */
const REQUIRED = [
  "loadScenario",
  "compileScenario",
  "checkManifest",
  "RuntimeManager",
  "ReferenceAutonomousParticipantRuntime",
  "openControlPlaneStore",
  "getParticipantHistoryView",
  "resolveToolAction",
  "exposeToolActionPort",
  "serveToolActionPort",
  "connectToolActionPort",
  "ParticipantToolActionRefusal",
  "ToolActionSettlement",
  "OperationState",
  "OperationKind",
  "SchedulerLifecycle",
  "ParticipantActionStatus",
];

/** The whole public surface, values and types: a name added, moved away or dropped is a deliberate change here. */
const PUBLIC_SURFACE = [
  "ActivityContinuation",
  "AdmitDecision",
  "AutonomousExecutionState",
  "BackendManifest",
  "canonicalDigest",
  "checkManifest",
  "CompiledAffordanceBinding",
  "CompiledAutonomousPolicy",
  "CompiledExecutionBinding",
  "compileScenario",
  "connectToolActionPort",
  "ContextViewOptions",
  "ControlOutcome",
  "controlParticipant",
  "ControlPlaneStore",
  "ControlRequest",
  "DEFAULT_STORE_URL",
  "Diagnostic",
  "DiagnosticCode",
  "DispatchReceipt",
  "ExecutionBindingOffer",
  "ExecutionControlAction",
  "exposeToolActionPort",
  "getParticipantHistoryView",
  "getParticipantStatusView",
  "HistoryEvent",
  "HistoryEventType",
  "ImplementationIdentity",
  "INVOCATION_TOOL_ACTIONS_V1",
  "InvocationControl",
  "InvocationSummary",
  "InvocationToolActionPort",
  "InvocationToolContext",
  "LateOutcome",
  "LeaseLostError",
  "LifecyclePhase",
  "LoadOptions",
  "LoadResult",
  "loadScenario",
  "ManifestCheck",
  "ManifestDiagnostic",
  "ManifestDiagnosticCode",
  "MemoryControlPlaneStore",
  "ModelActionContext",
  "NativeOutcome",
  "ObservationStatus",
  "openControlPlaneStore",
  "Operation",
  "OperationDiagnostic",
  "OperationDiagnosticCode",
  "OperationEntry",
  "OperationKind",
  "OperationQuery",
  "OperationState",
  "PacedRunEnd",
  "PacedRunOptions",
  "PacedRunSummary",
  "PacedStep",
  "ParticipantActionRequest",
  "ParticipantActionResult",
  "ParticipantActionStatus",
  "ParticipantContextView",
  "ParticipantControlCode",
  "ParticipantControlError",
  "ParticipantControlOptions",
  "ParticipantCrossingPolicy",
  "ParticipantEpisodeEvent",
  "ParticipantEpisodeOptions",
  "ParticipantEpisodeResetRequest",
  "ParticipantEpisodeState",
  "ParticipantExecutionServiceState",
  "ParticipantFailure",
  "ParticipantHistoryEvent",
  "participantHistoryEvents",
  "ParticipantHistoryView",
  "ParticipantResourceMeasurement",
  "ParticipantRuntime",
  "ParticipantServiceRecord",
  "ParticipantsFailedError",
  "ParticipantSnapshot",
  "ParticipantStatusView",
  "ParticipantToolActionOutcome",
  "ParticipantToolActionRefusal",
  "ParticipantToolActionRequest",
  "PolicyChangeAllowance",
  "PortAck",
  "ReferenceAutonomousParticipantRuntime",
  "RegistrationError",
  "RegistrationErrorCode",
  "ResolutionError",
  "ResolutionRefusal",
  "resolveToolAction",
  "ResourceBudgetEvent",
  "ResourceBudgetEventQuery",
  "ResourceBudgetEventRecord",
  "ResourceBudgetStateView",
  "ResourceMeasurementRequirement",
  "ResourceOutcome",
  "ResourcePoolStateView",
  "ResourceThrottle",
  "ResourceTransition",
  "RUNTIME_MODEL_SCHEMA",
  "RuntimeError",
  "RuntimeErrorCode",
  "RuntimeManager",
  "RuntimeManagerOptions",
  "RuntimeModel",
  "RuntimeObserver",
  "RuntimeTimers",
  "SchedulePosition",
  "SchedulerLifecycle",
  "SchedulerStopReason",
  "ServedToolActionPort",
  "serveToolActionPort",
  "StepOptions",
  "StepSummary",
  "StochasticControl",
  "StoreConflictError",
  "StoreSchemaDamagedError",
  "StoreUnavailableError",
  "systemTimers",
  "ToolActionPhase",
  "ToolActionPortAddress",
  "ToolActionResolution",
  "ToolActionSettlement",
  "toWireJson",
  "transition",
  "UnknownReason",
];

/** Every name `dist/index.d.ts` exports, as the TypeScript checker resolves them (re-exports included). */
function declaredExports(): string[] {
  const program = ts.createProgram([DIST_TYPES], { skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(DIST_TYPES);
  const module = source && checker.getSymbolAtLocation(source);
  assert.ok(module, `${DIST_TYPES} has no module symbol`);
  return checker
    .getExportsOfModule(module)
    .map((symbol) => symbol.name)
    .sort();
}

describe("the built package", () => {
  it("is built (npm test runs the build first)", () => assert.ok(existsSync(DIST), `${DIST} is missing`));

  it("exports every public name through the package's own exports map, named only", async () => {
    const byName = await import("raes-ts");
    const byPath = await import(pathToFileURL(DIST).href);
    assert.deepEqual(Object.keys(byName).sort(), Object.keys(byPath).sort());
    assert.equal("default" in byPath, false, "no default export");
    for (const name of REQUIRED) assert.ok(name in byPath, `missing export ${name}`);
  });

  it("exports exactly the public surface, types included", () => {
    assert.deepEqual(declaredExports(), [...PUBLIC_SURFACE].sort());
  });

  it("refusal codes are the fixed strings of docs/design.md §5", async () => {
    const { ParticipantToolActionRefusal } = await import(pathToFileURL(DIST).href);
    assert.deepEqual(Object.values(ParticipantToolActionRefusal).sort(), [
      "action_limit_exhausted",
      "affordance_unbound",
      "ambiguous_execution_offer",
      "boundary_outside_binding",
      "concurrency_limit_exhausted",
      "crossing_policy_installed",
      "generation_mismatch",
      "identity_mismatch",
      "invocation_closed",
      "invocation_inactive",
      "ledger_unavailable",
      "no_execution_offer",
      "outcome_invalid",
      "policy_profile_unsupported",
      "request_conflict",
      "request_invalid",
      "shared_time_bound",
      "state_conflict",
      "target_outside_binding",
      "unknown_action",
    ]);
  });
});
