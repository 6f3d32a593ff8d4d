"""Records what the RAES Python reference does when a v2 harness raises or answers an invalid result.

    RAES_PY=<RAES checkout> python3 tools/record-raes-harness-errors.py [--oracle DIR] [--out FILE]

--oracle is shared/raes-oracle (default: $RAES_ORACLE_DIR, else ../shared/raes-oracle beside the repository).
--out defaults to test/fixtures/raes-outcomes/v2-harness-error.json. Tests read the JSON; they never need Python.

Each case drives RAES's own RuntimeManager (stub backend + the native participant runtime of RAES's DSL-437
tests, via shared/raes-oracle/raes_v2_trace.py's TraceRuntime) on the v2 example (failure_policy continue) or
test/fixtures/v2-traces/stop.sdl.yaml (failure_policy stop), seed 42...42, namespace green-activity: apply,
then `advances` advances of 10 ticks. Native call `at` (1-based) raises RuntimeError (mode `raise`) or makes
admit_action return None (mode `invalid`); every other call succeeds. Per operation the fixture records
whether RAES returned success, raised (the exception's type), its diagnostic codes, the native calls it
made (action instance id, status) and the clock tick and scheduler state RAES holds afterwards.
"""
from __future__ import annotations

import argparse, hashlib, json, os, sys
from dataclasses import replace

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.environ.get("RAES_ORACLE_DIR") or os.path.join(REPO, "..", "shared", "raes-oracle")
CONTINUE = os.path.join(REPO, "examples", "enterprise-participant-activity-v2.sdl.yaml")
STOP = os.path.join(REPO, "test", "fixtures", "v2-traces", "stop.sdl.yaml")
FIELDS = ("lifecycle_state", "attempted_actions", "succeeded_actions", "failed_actions", "next_tick",
          "occurrence_ordinal", "current_retry", "last_action_instance_id")
SEED = "42" * 32
ADVANCES = 8
AT = 2

# name: (scenario, mode)
CASES = {
    "continue-raise": (CONTINUE, "raise"),
    "stop-raise": (STOP, "raise"),
    "continue-invalid": (CONTINUE, "invalid"),
    "stop-invalid": (STOP, "invalid"),
}


def record(name, scenario_path, mode):
    import raes_v2_trace as R
    import test_dsl_437_benign_participant_execution as T
    from raes.parser import parse_sdl
    from raes_backend_stubs.stubs import create_stub_target
    from raes_processor.compiler import compile_runtime_model
    from raes_runtime.manager import RuntimeManager

    class Faulty(R.TraceRuntime):
        def _model_action(self, request, snapshot, *, episode_id):
            if mode == "raise" and len(self.calls) + 1 == AT:
                self.calls.append((request, "raised", None))
                raise RuntimeError("harness error")
            return super()._model_action(request, snapshot, episode_id=episode_id)

        def admit_action(self, request, snapshot):
            if mode == "invalid" and len(self.calls) + 1 == AT:
                self.calls.append((request, "invalid", None))
                return None
            return super().admit_action(request, snapshot)

    source = open(scenario_path, encoding="utf-8").read()
    scenario = parse_sdl(source)
    model = compile_runtime_model(scenario)
    policy = next(s.autonomous_execution for s in model.behavior_specifications.values() if s.autonomous_execution)
    runtime = Faulty(0, "target_unavailable")
    target = replace(create_stub_target(), manifest=T._autonomous_manifest(model), participant_runtime=runtime)
    control = R._activity_control(policy.stochastic_control_ref, "green-activity", SEED)
    manager = RuntimeManager(target, stochastic_controls=[control])
    participant = policy.participant_addresses[0]
    operations = []

    def held():
        snapshot = manager.snapshot
        state = snapshot.participant_autonomous_execution_states[f"{policy.address}.state.{participant}"]
        clock = snapshot.time_model_state.clocks[policy.clock_address].coordinate
        return {"clock_tick": clock.tick, "scheduler": {k: state.get(k) for k in FIELDS}}

    def run(op, call):
        before = len(runtime.calls)
        try:
            result = call()
            outcome = {"success": bool(result.success), "raised": None,
                       "codes": [d.code for d in result.diagnostics]}
        except Exception as exc:  # what RAES lets escape
            outcome = {"success": False, "raised": type(exc).__name__, "codes": []}
        operations.append({"op": op, **outcome,
                           "calls": [{"action_instance_id": c[0].action_instance_id, "status": c[1]}
                                     for c in runtime.calls[before:]],
                           "held": held()})

    run("apply", lambda: manager.apply(manager.plan(scenario)))
    for _ in range(ADVANCES):
        run("advance", lambda: manager.advance_time(policy.clock_address, ticks=10))
    return {
        "source": "RAES Python reference RuntimeManager, recorded by tools/record-raes-harness-errors.py",
        "scenario": os.path.relpath(scenario_path, REPO),
        "scenario_sha256": hashlib.sha256(source.encode("utf-8")).hexdigest(),
        "failure_policy": policy.failure_policy, "mode": mode, "at": AT, "public_seed": SEED,
        "namespace": "green-activity", "operations": operations,
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=ORACLE)
    ap.add_argument("--out", default=os.path.join(REPO, "test", "fixtures", "raes-outcomes", "v2-harness-error.json"))
    args = ap.parse_args()
    sys.path.insert(0, args.oracle)
    import raes_oracle_env  # noqa: F401
    data = {name: record(name, *case) for name, case in CASES.items()}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    for name, case in data.items():
        print(name, [(o["success"], o["raised"], o["codes"][:1], len(o["calls"])) for o in case["operations"]],
              file=sys.stderr)
