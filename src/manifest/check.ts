import type { RuntimeModel } from "../compiler/index.js";
import {
  capPerCode,
  InputFileRefusal,
  MAX_JSON_DEPTH,
  MODEL_VALUE_BOUNDS,
  parseStrictJson,
  readInputFile,
  valueBoundsExceeded,
} from "../input/index.js";
import { claimDiagnostics } from "./claim.js";
import { ManifestDiagnosticCode as Code, ManifestSeverity } from "./codes.js";
import { DiagnosticSink } from "./diagnostics.js";
import type { ManifestDraft, OfferDraft, RuntimeDraft } from "./draft.js";
import { parseManifestDocument } from "./parse.js";
import { checkAgainstModel, checkCapabilities, checkOffers } from "./rules/index.js";
import type {
  BackendManifest,
  ExecutionBindingOffer,
  ManifestCheck,
  ParticipantRuntimeCapabilities,
} from "./types.js";

function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`internal: sound manifest shape lacks ${what}`);
  return value;
}

function finishOffer(offer: OfferDraft): ExecutionBindingOffer {
  return {
    bindingId: defined(offer.bindingId, "binding_id"),
    actionContractAddress: defined(offer.actionContractAddress, "action_contract_address"),
    targetAddresses: defined(offer.targetAddresses, "target_addresses"),
    participantImplementationRef: defined(
      offer.participantImplementationRef,
      "participant_implementation_ref",
    ),
    constraintRefs: defined(offer.constraintRefs, "constraint_refs"),
    evidenceRefs: defined(offer.evidenceRefs, "evidence_refs"),
    maxActionAttempts: defined(offer.maxActionAttempts, "max_action_attempts"),
    maxInFlight: defined(offer.maxInFlight, "max_in_flight"),
    timeoutSeconds: defined(offer.timeoutSeconds, "timeout_seconds"),
    maxRetries: defined(offer.maxRetries, "max_retries"),
  };
}

function finishRuntime(runtime: RuntimeDraft): ParticipantRuntimeCapabilities {
  const claim = runtime.claim;
  const limits = {
    ...(runtime.maxAutonomousParticipants === undefined
      ? {}
      : { maxAutonomousParticipants: runtime.maxAutonomousParticipants }),
    ...(runtime.maxAutonomousActionAttempts === undefined
      ? {}
      : { maxAutonomousActionAttempts: runtime.maxAutonomousActionAttempts }),
    ...(runtime.maxAutonomousInFlight === undefined
      ? {}
      : { maxAutonomousInFlight: runtime.maxAutonomousInFlight }),
  };
  return {
    activity: runtime.activity,
    ...(runtime.resourceBudgets === undefined ? {} : { resourceBudgets: runtime.resourceBudgets }),
    name: defined(runtime.name, "name"),
    supportedParticipantRoles: defined(runtime.supportedParticipantRoles, "supported_participant_roles"),
    supportedBehaviorFeatures: defined(runtime.supportedBehaviorFeatures, "supported_behavior_features"),
    featureSupport: runtime.featureSupport.map((entry) => ({
      feature: defined(entry.feature, "feature"),
      supportLevel: defined(entry.supportLevel, "support_level"),
    })),
    supportsAutonomousExecution: defined(
      runtime.supportsAutonomousExecution,
      "supports_autonomous_execution",
    ),
    supportedAutonomousSelectionStrategies: runtime.supportedAutonomousSelectionStrategies ?? [],
    supportedAutonomousPolicyProfiles: runtime.supportedAutonomousPolicyProfiles ?? [],
    supportedAutonomousActionContracts: runtime.supportedAutonomousActionContracts ?? [],
    supportedAutonomousObservationBoundaries: runtime.supportedAutonomousObservationBoundaries ?? [],
    supportedAutonomousTargetAddresses: runtime.supportedAutonomousTargetAddresses ?? [],
    ...limits,
    executionBindings: runtime.executionBindings.map(finishOffer),
    supportsExecutionControl: runtime.supportsExecutionControl,
    supportedExecutionControlActions: runtime.supportedExecutionControlActions,
    ...(claim === undefined
      ? {}
      : {
          invocationToolActions: {
            semanticVersions: defined(claim.semanticVersions, "semantic_versions"),
            maxToolActionsPerInvocation: defined(
              claim.maxToolActionsPerInvocation,
              "max_tool_actions_per_invocation",
            ),
            maxConcurrentToolActionsPerInvocation: defined(
              claim.maxConcurrentToolActionsPerInvocation,
              "max_concurrent_tool_actions_per_invocation",
            ),
          },
        }),
  };
}

function finishManifest(draft: ManifestDraft): BackendManifest {
  return {
    schemaVersion: defined(draft.schemaVersion, "schema_version"),
    name: defined(draft.name, "name"),
    version: defined(draft.version, "version"),
    participantRuntime: finishRuntime(defined(draft.runtime, "participant_runtime")),
    ...(draft.supportedContractVersions === undefined
      ? {}
      : { supportedContractVersions: draft.supportedContractVersions }),
    ...(draft.time === undefined ? {} : { time: draft.time }),
  };
}

/** The largest manifest text read. */
const MAX_MANIFEST_BYTES = 1_000_000;

function parseText(sink: DiagnosticSink, text: string): { readonly document?: unknown } {
  if (text.length > MAX_MANIFEST_BYTES) {
    sink.shape(Code.source_limit, "", `the manifest is larger than ${MAX_MANIFEST_BYTES} bytes`);
    return {};
  }
  const parsed = parseStrictJson(text, MAX_JSON_DEPTH);
  if (parsed.ok) return { document: parsed.value };
  if (parsed.problem === "syntax") sink.shape(Code.invalid_json, "", `not JSON: ${parsed.message}`);
  else if (parsed.problem === "duplicate_key") sink.shape(Code.duplicate_key, parsed.pointer, parsed.message);
  else sink.shape(Code.source_limit, parsed.pointer, `the manifest is ${parsed.message}`);
  return {};
}

function runRules(sink: DiagnosticSink, runtime: RuntimeDraft): void {
  checkCapabilities(sink, runtime);
  if (runtime.claim !== undefined) {
    // One push per diagnostic: a spread of a hundred thousand arguments overflows the stack.
    for (const diagnostic of claimDiagnostics({
      path: runtime.claim.path,
      supportsAutonomousExecution: runtime.supportsAutonomousExecution,
      featureSupport: runtime.featureSupport,
      semanticVersions: runtime.claim.semanticVersions,
      maxToolActionsPerInvocation: runtime.claim.maxToolActionsPerInvocation,
      maxConcurrentToolActionsPerInvocation: runtime.claim.maxConcurrentToolActionsPerInvocation,
    }))
      sink.diagnostics.push(diagnostic);
  }
  checkOffers(sink, runtime);
}

/**
 * Checks a backend manifest (JSON text or a parsed value), and against a compiled scenario when one is given.
 * Every problem is reported; the model is consulted only once the manifest's shape is sound.
 */
export function checkManifest(manifestJson: unknown, model?: RuntimeModel): ManifestCheck {
  // A value given already parsed had no byte limit: bound it before any work.
  const manifestProblem = typeof manifestJson === "string" ? undefined : valueBoundsExceeded(manifestJson);
  const modelProblem = model === undefined ? undefined : valueBoundsExceeded(model, MODEL_VALUE_BOUNDS);
  const problem =
    manifestProblem?.replace(/^the value/, "the manifest") ??
    modelProblem?.replace(/^the value/, "the model");
  if (problem !== undefined) {
    const refusal = {
      code: Code.value_too_large,
      severity: ManifestSeverity.error,
      message: problem,
      path: "",
    };
    return { ok: false, diagnostics: [refusal] };
  }
  const check = checkUncapped(manifestJson, model);
  return { ...check, diagnostics: capPerCode(check.diagnostics) };
}

function checkUncapped(manifestJson: unknown, model: RuntimeModel | undefined): ManifestCheck {
  const sink = new DiagnosticSink();
  const parsed =
    typeof manifestJson === "string" ? parseText(sink, manifestJson) : { document: manifestJson };
  if (!("document" in parsed)) return { ok: false, diagnostics: sink.diagnostics };
  const draft = parseManifestDocument(sink, parsed.document);
  if (draft.runtime !== undefined) runRules(sink, draft.runtime);
  if (!sink.shapeIsSound) return { ok: false, diagnostics: sink.diagnostics };
  const manifest = finishManifest(draft);
  if (model !== undefined) checkAgainstModel(sink, manifest, model);
  return { ok: sink.ok, manifest, diagnostics: sink.diagnostics };
}

/** Reads a manifest file (a regular file of at most 1 MB) and checks it; a file it cannot read is one diagnostic. */
export async function checkManifestFile(path: string, model?: RuntimeModel): Promise<ManifestCheck> {
  const read = readInputFile(path, MAX_MANIFEST_BYTES);
  if (read.ok) return checkManifest(read.text, model);
  const code = {
    [InputFileRefusal.not_regular]: Code.file_not_regular,
    [InputFileRefusal.too_large]: Code.source_limit,
    [InputFileRefusal.unreadable]: Code.file_unreadable,
  }[read.refusal];
  return {
    ok: false,
    diagnostics: [{ code, severity: ManifestSeverity.error, message: read.message, path: "" }],
  };
}
