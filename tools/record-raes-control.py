"""Records RAES's answers for participant execution control, coordinated reset and participant episodes.

    RAES_PY=<RAES checkout> python3 tools/record-raes-control.py [ORACLE_DIR]

Writes test/fixtures/raes-control/*.json; the tests read the JSON only.

- execution-control.json: RAES's generation-fenced lifecycle control (participant-execution-control/v1), driven
  through RAES's own boundary (`backend_execution_control_method`, what `control_participant_execution` runs)
  over RAES's native test controller (tests/participant_execution_test_backend.py). `grid`: every observed
  lifecycle x action, with the current and a stale expected_generation; `sequence`: RAES's issue-898 walk
  (start, stale pause, pause, resume, drain, reset, drain, teardown, then refused ones). Each answer keeps
  success, the diagnostic code and the readback fields the action changes.
- episodes.json: RAES's participant episode lifecycle (BaseParticipantRuntime: initialize, reset, restart,
  terminate) for two participants interleaved; per step success/code/message, and at the end each
  participant's episode state and history without timestamps.
- registration.json: RAES's registration (`RuntimeTarget`) of a participant runtime without `reset_many`
  under a manifest that claims coordinated participant reset, and without `control_execution` under one that
  claims execution control; and RAES's clock reset of a clock with autonomous participants under a manifest
  without coordinated participant reset (the runtime manager on the v1 example).
"""
import json, sys
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ORACLE = sys.argv[1] if len(sys.argv) > 1 else str(REPO.parent / "shared" / "raes-oracle")
sys.path.insert(0, ORACLE)
import raes_oracle_env  # noqa: E402,F401
import test_dsl_437_benign_participant_execution as T  # noqa: E402
from participant_execution_test_backend import NativeParticipantExecutionController  # noqa: E402
from raes.parser import parse_sdl  # noqa: E402
from raes_backend_protocols.participant_runtime_base import BaseParticipantRuntime  # noqa: E402
from raes_backend_stubs.stubs import create_stub_target  # noqa: E402
from raes_contracts.contracts.participant_execution import (  # noqa: E402
    ParticipantExecutionControlRequestModel,
    ParticipantExecutionServiceStateModel,
)
from raes_contracts.participant_episode import (  # noqa: E402
    ParticipantEpisodeInitializeRequest,
    ParticipantEpisodeResetRequest,
    ParticipantEpisodeRestartRequest,
    ParticipantEpisodeTerminalReason,
    ParticipantEpisodeTerminateRequest,
)
from raes_contracts.runtime_state import RuntimeSnapshot  # noqa: E402
from raes_processor.compiler import compile_runtime_model  # noqa: E402
from raes_runtime.manager import RuntimeManager  # noqa: E402
from raes_runtime.participant_execution_control_boundary import backend_execution_control_method  # noqa: E402

OUT = REPO / "test" / "fixtures" / "raes-control"
SCOPE = "participant.autonomous-execution.green-activity"
ACTIONS = ["start", "pause", "resume", "drain", "reset", "teardown"]
READBACK = [
    "desired_lifecycle", "observed_lifecycle", "generation", "observed_generation", "readiness",
    "accepting_new_work", "draining", "quiescent", "resources_released", "reserved", "in_flight",
]
# A consistent readback per observed lifecycle, as RAES's model validator requires.
LIFECYCLE_FIELDS = {
    "stopped": dict(readiness="not_ready", accepting_new_work=False, resources_released=False),
    "running": dict(readiness="ready", accepting_new_work=True, resources_released=False),
    "paused": dict(readiness="not_ready", accepting_new_work=False, resources_released=False),
    "quiescent": dict(readiness="not_ready", accepting_new_work=False, resources_released=False),
    "terminated": dict(readiness="not_ready", accepting_new_work=False, resources_released=True),
}


def service_state(lifecycle, generation):
    payload = {
        "execution_scope_ref": SCOPE, "policy_address": SCOPE,
        "desired_lifecycle": lifecycle, "observed_lifecycle": lifecycle,
        "generation": generation, "observed_generation": generation,
        "health": "healthy", "draining": False, "quiescent": True,
        "policy_digest": "sha256:" + "1" * 64, "binding_digest": "sha256:" + "2" * 64,
        "time_declaration_digest": "sha256:" + "3" * 64,
        "scheduler_state_refs": [], "capacity": 2, "reserved": 0, "in_flight": 0,
        "last_transition_ref": "operation.participant-execution.configure.0",
        "evidence_refs": ["evidence.participant-execution.health.0"],
        **LIFECYCLE_FIELDS[lifecycle],
    }
    return ParticipantExecutionServiceStateModel.model_validate(payload).model_dump(mode="json")


def request(action, generation):
    return ParticipantExecutionControlRequestModel(
        execution_scope_ref=SCOPE, action=action, expected_generation=generation,
        timeout_seconds=1 if action == "drain" else None,
    )


def answer(result):
    out = {"success": result.success, "codes": [d.code for d in result.diagnostics]}
    state = result.snapshot.participant_execution_services.get(SCOPE)
    if state is not None:
        out["state"] = {k: state[k] for k in READBACK}
    return out


def control(snapshot, action, generation):
    apply = backend_execution_control_method(NativeParticipantExecutionController().control)
    return apply(request(action, generation), snapshot)


def grid():
    rows = []
    for lifecycle in LIFECYCLE_FIELDS:
        for action in ACTIONS:
            for stale in (False, True):
                snapshot = RuntimeSnapshot(participant_execution_services={SCOPE: service_state(lifecycle, 3)})
                result = control(snapshot, action, 4 if stale else 3)
                rows.append({"lifecycle": lifecycle, "generation": 3, "action": action,
                             "expected_generation": 4 if stale else 3, **answer(result)})
    return rows


def sequence():
    snapshot = RuntimeSnapshot(participant_execution_services={SCOPE: service_state("stopped", 0)})
    steps = [("start", 0), ("pause", 1), ("pause", 0), ("resume", 0), ("drain", 0), ("reset", 0),
             ("reset", 0), ("pause", 1), ("drain", 1), ("teardown", 1), ("start", 1), ("resume", 1)]
    out = []
    for action, generation in steps:
        result = control(snapshot, action, generation)
        if result.success:
            snapshot = result.snapshot
        out.append({"action": action, "expected_generation": generation, **answer(result)})
    # A scope the runtime never configured.
    missing = control(RuntimeSnapshot(), "pause", 0)
    return out, {"success": missing.success, "codes": [d.code for d in missing.diagnostics]}


def strip(event):
    return {k: v for k, v in event.items() if k != "timestamp"}


def strip_state(state):
    return {k: v for k, v in state.items() if k not in ("initialized_at", "updated_at", "terminated_at")} | {
        "terminated": state.get("terminated_at") is not None
    }


def episodes():
    runtime = BaseParticipantRuntime()
    snapshot = RuntimeSnapshot()
    a, b = "participant.behavior.alpha", "participant.behavior.beta"
    steps = [
        ("reset", a, ParticipantEpisodeResetRequest(participant_address=a, reason="r0")),
        ("initialize", a, ParticipantEpisodeInitializeRequest(participant_address=a)),
        ("initialize", a, ParticipantEpisodeInitializeRequest(participant_address=a)),
        ("initialize", b, ParticipantEpisodeInitializeRequest(participant_address=b)),
        ("reset", a, ParticipantEpisodeResetRequest(participant_address=a, reason="operator reset")),
        ("restart", a, ParticipantEpisodeRestartRequest(participant_address=a, reason="too early")),
        ("terminate", a, ParticipantEpisodeTerminateRequest(
            participant_address=a, terminal_reason=ParticipantEpisodeTerminalReason.INTERRUPTED,
            detail="operator stop")),
        ("terminate", a, ParticipantEpisodeTerminateRequest(participant_address=a)),
        ("reset", a, ParticipantEpisodeResetRequest(participant_address=a, reason="after stop")),
        ("restart", a, ParticipantEpisodeRestartRequest(participant_address=a, reason="again")),
        ("terminate", b, ParticipantEpisodeTerminateRequest(
            participant_address=b, terminal_reason=ParticipantEpisodeTerminalReason.COMPLETED, detail="done")),
        ("restart", b, ParticipantEpisodeRestartRequest(participant_address=b, reason="next run")),
        ("terminate", "", ParticipantEpisodeTerminateRequest(participant_address="")),
    ]
    out = []
    for action, participant, req in steps:
        result = getattr(runtime, action)(req, snapshot)
        if result.success:
            snapshot = result.snapshot
        out.append({"action": action, "participant": participant, "request": {
            k: (v.value if hasattr(v, "value") else v) for k, v in req.__dict__.items()},
            "success": result.success, "codes": [d.code for d in result.diagnostics],
            "messages": [d.message for d in result.diagnostics]})
    return {
        "steps": out,
        "states": {p: strip_state(s) for p, s in snapshot.participant_episode_results.items()},
        "histories": {p: [strip(e) for e in h] for p, h in snapshot.participant_episode_history.items()},
    }


class NoResetMany(BaseParticipantRuntime):
    reset_many = None


class NoControl(T._NativeParticipantRuntime):
    control_execution = None


def registration():
    out = {}
    stub = create_stub_target()
    assert stub.manifest.time is not None and stub.manifest.time.supports_coordinated_participant_reset
    try:
        replace(stub, participant_runtime=NoResetMany())
        out["coordinated_reset_without_reset_many"] = {"success": True}
    except ValueError as exc:
        out["coordinated_reset_without_reset_many"] = {"success": False, "code": str(exc).split(":")[0],
                                                       "message": str(exc)}
    try:
        replace(stub, participant_runtime=BaseParticipantRuntime())
        out["coordinated_reset_with_reset_many"] = {"success": True}
    except ValueError as exc:
        out["coordinated_reset_with_reset_many"] = {"success": False, "message": str(exc)}
    text = (REPO / "examples" / "enterprise-participant-evidence-loop.sdl.yaml").read_text(encoding="utf-8")
    model = compile_runtime_model(parse_sdl(text))
    manifest = T._autonomous_manifest(model)
    controlled = replace(manifest, capabilities=replace(
        manifest.capabilities,
        participant_runtime=replace(manifest.participant_runtime, supports_execution_control=True)))
    try:
        replace(stub, manifest=controlled, participant_runtime=NoControl())
        out["execution_control_without_control_execution"] = {"success": True}
    except ValueError as exc:
        out["execution_control_without_control_execution"] = {"success": False, "code": str(exc).split(":")[0],
                                                              "message": str(exc)}
    # A clock reset under a manifest whose time capability lacks coordinated participant reset.
    scenario = parse_sdl(text)
    policy = next(s.autonomous_execution for s in model.behavior_specifications.values() if s.autonomous_execution)
    uncoordinated = replace(manifest, capabilities=replace(
        manifest.capabilities, time=replace(manifest.time, supports_coordinated_participant_reset=False)))
    try:
        target = replace(stub, manifest=uncoordinated, participant_runtime=T._NativeParticipantRuntime())
        manager = RuntimeManager(target)
        applied = manager.apply(manager.plan(scenario))
        if not applied.success:
            out["clock_reset_without_coordinated_reset"] = {
                "stage": "apply", "success": False, "codes": [d.code for d in applied.diagnostics],
                "messages": [d.message for d in applied.diagnostics]}
        else:
            result = manager.reset_time(policy.clock_address)
            out["clock_reset_without_coordinated_reset"] = {
                "stage": "reset", "success": result.success, "codes": [d.code for d in result.diagnostics],
                "messages": [d.message for d in result.diagnostics]}
    except ValueError as exc:
        out["clock_reset_without_coordinated_reset"] = {"stage": "register", "success": False, "message": str(exc)}
    coordinated = replace(stub, manifest=manifest, participant_runtime=T._NativeParticipantRuntime())
    manager = RuntimeManager(coordinated)
    assert manager.apply(manager.plan(parse_sdl(text))).success
    result = manager.reset_time(policy.clock_address)
    out["clock_reset_with_coordinated_reset"] = {
        "success": result.success, "codes": [d.code for d in result.diagnostics],
        "episodes": {p: {"episode_id": s["episode_id"], "sequence_number": s["sequence_number"],
                         "last_control_action": s["last_control_action"]}
                     for p, s in result.snapshot.participant_episode_results.items()}}
    return out


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    meta = {"raes_reference": "OpenRAE/rae python (RAES_PY)", "made_by": "tools/record-raes-control.py"}
    seq, missing = sequence()
    files = {
        "execution-control.json": {**meta, "grid": grid(), "sequence": seq, "missing_scope": missing},
        "episodes.json": {**meta, **episodes()},
        "registration.json": {**meta, **registration()},
    }
    for name, payload in files.items():
        (OUT / name).write_text(json.dumps(payload, indent=1) + "\n")
        print(name, "written")


if __name__ == "__main__":
    main()
