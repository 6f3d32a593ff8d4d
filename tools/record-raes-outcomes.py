"""Records what the RAES Python reference does when an autonomous action does not succeed, as fixtures.

    RAES_PY=<RAES checkout> python3 tools/record-raes-outcomes.py [--oracle DIR] [--out DIR]

--oracle is shared/raes-oracle (default: $RAES_ORACLE_DIR, else ../shared/raes-oracle beside the repository).
--out defaults to test/fixtures/raes-outcomes. Tests read the JSON; they never need Python.

Each case drives RAES's own RuntimeManager (stub backend + the native participant runtime of RAES's DSL-437
tests, via shared/raes-oracle/raes_v2_trace.py's TraceRuntime) on a scenario: apply, then `advances` advances of
the policy clock by its progression step. Native call n (1-based, every attempt) ends with `status` (failed with
failure_class target_unavailable, or partial_success without a failure class) when n % fail_every == 0.
Per operation the fixture records whether RAES reported success, its diagnostic codes, the native calls it made
(action instance id, status), the clock RAES holds afterwards and the participant's scheduler state.
Variant scenarios are written next to their fixture as <case>.sdl.yaml.
"""
from __future__ import annotations

import argparse, hashlib, json, os, sys
from dataclasses import replace

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.environ.get("RAES_ORACLE_DIR") or os.path.join(REPO, "..", "shared", "raes-oracle")
V1 = os.path.join(REPO, "examples", "enterprise-participant-evidence-loop.sdl.yaml")
V2 = os.path.join(REPO, "examples", "enterprise-participant-activity-v2.sdl.yaml")
STOP_V2 = os.path.join(REPO, "test", "fixtures", "v2-traces", "stop.sdl.yaml")
FIELDS = ("lifecycle_state", "attempted_actions", "succeeded_actions", "failed_actions", "next_tick",
          "last_action_instance_id", "occurrence_ordinal", "current_retry", "completed_candidate_ids")


def v1_variant(failure_policy: str, attempts: int = 6, cadence: int | None = None):
    def build(text: str) -> str:
        payload = yaml.safe_load(text)
        policy = payload["behavior_specifications"]["participant-behavior"]["autonomous_execution"]
        policy["failure_policy"] = failure_policy
        policy["max_action_attempts"] = attempts
        if cadence is not None:
            payload["temporal_constraints"]["green-cadence"]["cadence_ticks"] = cadence
        return yaml.safe_dump(payload, sort_keys=False)
    return build


# name: (base scenario, variant or None, public seed or None, fail_every, status, advances)
CASES = {
    "v1-stop-failed": (V1, v1_variant("stop"), None, 2, "failed", 12),
    "v1-stop-partial": (V1, v1_variant("stop"), None, 2, "partial_success", 12),
    "v1-continue-partial": (V1, v1_variant("continue"), None, 2, "partial_success", 8),
    "v1-cadence-15": (V1, v1_variant("continue", 8, 15), None, 0, "failed", 12),
    "v2-stop-failed": (STOP_V2, None, "5c" * 32, 7, "failed", 24),
    "v2-partial": (V2, None, "42" * 32, 3, "partial_success", 30),
}


def record(name, base, variant, seed, fail_every, status, advances):
    import raes_v2_trace as R
    import test_dsl_437_benign_participant_execution as T
    from raes import SDLValidationError
    from raes.parser import parse_sdl
    from raes_backend_stubs.stubs import create_stub_target
    from raes_processor.compiler import compile_runtime_model
    from raes_runtime.manager import RuntimeManager

    class Outcomes(R.TraceRuntime):
        def _model_action(self, request, snapshot, *, episode_id):
            execution = super()._model_action(request, snapshot, episode_id=episode_id)
            if status == "partial_success" and self.calls[-1][1] == "failed":
                execution = replace(execution, action_result=execution.action_result.model_copy(
                    update={"status": "partial_success", "failure_class": None}))
                self.calls[-1] = (self.calls[-1][0], "partial_success", None)
            return execution

    source = open(base, encoding="utf-8").read()
    if variant is not None:
        source = variant(source)
    if variant is not None:
        with open(os.path.join(OUT, f"{name}.sdl.yaml"), "w", encoding="utf-8") as f:
            f.write(source)
    head = {
        "source": "RAES Python reference RuntimeManager, recorded by tools/record-raes-outcomes.py",
        "case": name, "scenario": os.path.relpath(base, REPO) if variant is None else f"{name}.sdl.yaml",
        "scenario_sha256": hashlib.sha256(source.encode("utf-8")).hexdigest(),
    }
    try:
        scenario = parse_sdl(source)
    except SDLValidationError as error:
        issues = [{"code": getattr(i, "code", None), "message": str(getattr(i, "message", i))} for i in error.errors] \
            if hasattr(error, "errors") else [{"code": None, "message": str(error)}]
        return {**head, "verdict": "invalid", "issues": issues}
    model = compile_runtime_model(scenario)
    policy = next(s.autonomous_execution for s in model.behavior_specifications.values() if s.autonomous_execution)
    step_ticks = next(p.step_ticks for p in model.time_model.progression_policies
                      if p.address == policy.progression_policy_address)
    runtime = Outcomes(fail_every, "target_unavailable")
    target = replace(create_stub_target(), manifest=T._autonomous_manifest(model), participant_runtime=runtime)
    controls = [R._activity_control(policy.stochastic_control_ref, "green-activity", seed)] if seed else []
    manager = RuntimeManager(target, stochastic_controls=controls)
    participant = policy.participant_addresses[0]

    def snapshot_of(snapshot):
        state = snapshot.participant_autonomous_execution_states[f"{policy.address}.state.{participant}"]
        clock = snapshot.time_model_state.clocks[policy.clock_address].coordinate
        return {"clock": {"segment": clock.segment, "tick": clock.tick},
                "scheduler": {k: state.get(k) for k in FIELDS if k in state}}

    operations = []

    def note(op, result, before):
        held = manager.snapshot if hasattr(manager, "snapshot") else result.snapshot
        operations.append({
            "op": op, "success": bool(result.success), "codes": [d.code for d in result.diagnostics],
            "calls": [{"action_instance_id": c[0].action_instance_id, "status": c[1]} for c in runtime.calls[before:]],
            "result": snapshot_of(result.snapshot), "held": snapshot_of(held),
        })

    applied = manager.apply(manager.plan(scenario))
    note("apply", applied, 0)
    for _ in range(advances):
        before = len(runtime.calls)
        note("advance", manager.advance_time(policy.clock_address, ticks=step_ticks), before)
    return {
        **head, "verdict": "valid",
        "public_seed": seed, "fail_every": fail_every, "status": status, "step_ticks": step_ticks,
        "failure_policy": policy.failure_policy, "participant": participant, "operations": operations,
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=ORACLE)
    ap.add_argument("--out", default=os.path.join(REPO, "test", "fixtures", "raes-outcomes"))
    args = ap.parse_args()
    OUT = args.out
    sys.path.insert(0, args.oracle)
    import raes_oracle_env  # noqa: F401
    os.makedirs(OUT, exist_ok=True)
    for name, case in CASES.items():
        data = record(name, *case)
        with open(os.path.join(OUT, f"{name}.json"), "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        print(name, data["verdict"], len(data.get("operations", [])), "operations", file=sys.stderr)
