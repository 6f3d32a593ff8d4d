"""Records what RAES does when a running scenario is applied again with an edited autonomous policy.

    RAES_PY=<RAES checkout> python3 tools/record-raes-policy-change.py [ORACLE_DIR]

Drives RAES's RuntimeManager (stub backend, native DSL-437 test runtime, as tools/record-raes-runtime.py)
on the v1 example: apply, two advances, then RAES's policy initialisation (`_initialize_policy`, what
apply runs) with the edited example's compiled policy on the state the run reached, and once more with
the unchanged policy.
Edits: the policy's max_action_attempts (lowered, so the manifest still offers it) and its
failure_policy; both change only RAES's policy digest. Writes test/fixtures/raes-policy-digest/policy-change.json: the
diagnostic codes and messages of the second apply, whether it succeeded, and whether the scheduler
state RAES held afterwards is the state before it (nothing written). Tests read the JSON only.
"""
import json, os, sys
from dataclasses import replace
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
ORACLE = sys.argv[1] if len(sys.argv) > 1 else str(REPO.parent / "shared" / "raes-oracle")
sys.path.insert(0, ORACLE)
import raes_oracle_env  # noqa: E402,F401
import test_dsl_437_benign_participant_execution as T  # noqa: E402
from raes.parser import parse_sdl  # noqa: E402
from raes_backend_stubs.stubs import create_stub_target  # noqa: E402
from raes_processor.compiler import compile_runtime_model  # noqa: E402
from raes_runtime.manager import RuntimeManager  # noqa: E402
from raes_runtime.participant_scheduler import _initialize_policy  # noqa: E402
from raes_runtime.participant_scheduler_policy import _policy_digest  # noqa: E402

EXAMPLE = REPO / "examples" / "enterprise-participant-evidence-loop.sdl.yaml"


def edited(text, edit):
    payload = yaml.safe_load(text)
    edit(payload)
    return yaml.safe_dump(payload, sort_keys=False)


def attempts_edit(payload):
    payload["behavior_specifications"]["participant-behavior"]["autonomous_execution"]["max_action_attempts"] = 1


def failure_policy_edit(payload):
    payload["behavior_specifications"]["participant-behavior"]["autonomous_execution"]["failure_policy"] = "continue"


def run(edit_name, edit):
    text = EXAMPLE.read_text(encoding="utf-8")
    scenario = parse_sdl(text)
    model = compile_runtime_model(scenario)
    policy = next(s.autonomous_execution for s in model.behavior_specifications.values() if s.autonomous_execution)
    target = replace(create_stub_target(), manifest=T._autonomous_manifest(model),
                     participant_runtime=T._NativeParticipantRuntime())
    manager = RuntimeManager(target)
    assert manager.apply(manager.plan(scenario)).success
    for _ in range(2):
        assert manager.advance_time(policy.clock_address, ticks=10).success
    before = json.dumps(manager.snapshot.participant_autonomous_execution_states, sort_keys=True, default=str)
    # RAES's backend refuses to re-apply a scenario mid-run, so its scheduler initialisation (what apply
    # runs for an autonomous policy) is driven directly on the state the run reached.
    second = compile_runtime_model(parse_sdl(edited(text, edit)))
    edited_policy = next(
        s.autonomous_execution for s in second.behavior_specifications.values() if s.autonomous_execution
    )
    result = _initialize_policy(edited_policy, second.time_model, target.participant_runtime, manager.snapshot, {})
    same = _initialize_policy(policy, model.time_model, target.participant_runtime, manager.snapshot, {})
    after = json.dumps(manager.snapshot.participant_autonomous_execution_states, sort_keys=True, default=str)
    return {
        "edit": edit_name,
        "success": result.success,
        "codes": sorted({d.code for d in result.diagnostics}),
        "addresses": sorted({d.address for d in result.diagnostics if d.address}),
        "messages": [d.message for d in result.diagnostics],
        "state_unchanged": before == after,
        "digest_before": _policy_digest(policy, model.time_model),
        "digest_after": _policy_digest(edited_policy, second.time_model),
        "same_policy_success": same.success,
    }


def main():
    out = REPO / "test" / "fixtures" / "raes-policy-digest" / "policy-change.json"
    cases = [run("max_action_attempts", attempts_edit), run("failure_policy", failure_policy_edit)]
    out.write_text(json.dumps({"raes_reference": "OpenRAE/rae python (RAES_PY)", "cases": cases}, indent=1) + "\n")
    print(json.dumps(cases, indent=1))


if __name__ == "__main__":
    main()
