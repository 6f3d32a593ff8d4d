"""Records what the RAES Python reference does at runtime, as fixtures for raes-ts's runtime differential.

    RAES_PY=<RAES checkout> python3 tools/record-raes-runtime.py [--oracle DIR] [--out DIR]

--oracle is shared/raes-oracle (default: $RAES_ORACLE_DIR, else ../shared/raes-oracle beside the repository);
it puts RAES and its shims on sys.path. --out defaults to test/fixtures/raes-runtime.

Each case drives RAES's own RuntimeManager (stub backend + the native participant runtime of RAES's DSL-437
tests, which answers every autonomous action at once with status succeeded and one observation) on a scenario:
  apply, then `advances` advances of the policy clock by its progression step, then (when `reset`) RAES's
  coordinated reset (reset_time), then run_due_participant_actions (RAES runs nothing at reset_time itself;
  its own test runs the new segment's start tick this way), then `advances` more advances.
After every operation the fixture records the native attempts it made (participant, action instance id,
observation point, episode, generation), the clock, and each participant's scheduler state. At the end it
records every participant's behavior history as RAES serialises it.

Cases: the example unchanged; the example with a later cadence start and a larger attempt bound; the example
with a second participant under the same policy. Variant scenarios are written next to their fixture as
<case>.sdl.yaml, so raes-ts loads exactly the text RAES ran.
"""
from __future__ import annotations

import argparse, hashlib, json, os, sys
from dataclasses import replace

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.environ.get("RAES_ORACLE_DIR") or os.path.join(REPO, "..", "shared", "raes-oracle")
EXAMPLE = os.path.join(REPO, "examples", "enterprise-participant-evidence-loop.sdl.yaml")
STATE_FIELDS = ("lifecycle_state", "time_segment", "attempted_actions", "succeeded_actions", "failed_actions",
                "next_tick", "next_action_index", "last_action_instance_id", "episode_id")


def later_start(text: str) -> str:
    """Cadence from tick 20 every 30 ticks, 6 attempts: start, period and completion all differ from the example."""
    payload = yaml.safe_load(text)
    payload["temporal_constraints"]["green-cadence"]["start"]["tick"] = 20
    payload["temporal_constraints"]["green-cadence"]["cadence_ticks"] = 30
    payload["behavior_specifications"]["participant-behavior"]["autonomous_execution"]["max_action_attempts"] = 6
    return yaml.safe_dump(payload, sort_keys=False)


def two_participants(text: str) -> str:
    """A second agent, `participant-agent-b`, authored like the first and governed by the same policy."""
    payload = yaml.safe_load(text)
    agents = payload["agents"]
    agents["participant-agent-b"] = json.loads(json.dumps(agents["participant-agent"]))
    payload["behavior_specifications"]["participant-behavior"]["participant_refs"].append("participant-agent-b")
    return yaml.safe_dump(payload, sort_keys=False)


CASES = {
    "example": (None, 50, True),
    "later-start": (later_start, 50, True),
    "two-participants": (two_participants, 50, True),
}


def record(name: str, source: str, advances: int, reset: bool) -> dict:
    import test_dsl_437_benign_participant_execution as T
    from raes.parser import parse_sdl
    from raes_backend_stubs.stubs import create_stub_target
    from raes_processor.compiler import compile_runtime_model
    from raes_runtime.manager import RuntimeManager

    scenario = parse_sdl(source)
    model = compile_runtime_model(scenario)
    policies = [s.autonomous_execution for s in model.behavior_specifications.values()
                if s.autonomous_execution is not None]
    assert len(policies) == 1, "one autonomous policy"
    policy = policies[0]
    participants = list(policy.participant_addresses)
    step_ticks = next(p.step_ticks for p in model.time_model.progression_policies
                      if p.address == policy.progression_policy_address)
    runtime = T._NativeParticipantRuntime()
    calls: list = []
    original = runtime._model_action

    def model_action(request, snapshot, *, episode_id):
        calls.append((request, episode_id))
        return original(request, snapshot, episode_id=episode_id)

    runtime._model_action = model_action
    target = replace(create_stub_target(), manifest=T._autonomous_manifest(model), participant_runtime=runtime)
    manager = RuntimeManager(target)
    operations: list[dict] = []
    seen = 0

    def note(op: str, result) -> None:
        nonlocal seen
        if not result.success:
            sys.exit(f"{name}: {op} failed: {[(d.code, d.message) for d in result.diagnostics]}")
        snapshot = result.snapshot
        coordinate = snapshot.time_model_state.clocks[policy.clock_address].coordinate
        states = {}
        for participant in participants:
            state = snapshot.participant_autonomous_execution_states[f"{policy.address}.state.{participant}"]
            states[participant] = {k: state.get(k) for k in STATE_FIELDS}
        attempts = [{
            "participant_address": request.participant_address,
            "action_instance_id": request.action_instance_id,
            "episode_id": episode_id,
            "observation_point": request.temporal_contexts[0].observation_point,
            "execution_generation": request.execution_generation,
        } for request, episode_id in calls[seen:]]
        seen = len(calls)
        operations.append({"op": op, "clock": {"segment": coordinate.segment, "tick": coordinate.tick},
                           "attempts": attempts, "schedulers": states})

    applied = manager.apply(manager.plan(scenario))
    note("apply", applied)
    snapshot = applied.snapshot
    phases = [advances, advances] if reset else [advances]
    for phase, count in enumerate(phases):
        if phase == 1:
            note("reset", manager.reset_time(policy.clock_address))
            due = manager.run_due_participant_actions()
            note("run_due", due)
        for _ in range(count):
            result = manager.advance_time(policy.clock_address, ticks=step_ticks)
            note("advance", result)
            snapshot = result.snapshot
    history = {p: list(snapshot.participant_behavior_history.get(p, ())) for p in participants}
    return {
        "source": "RAES Python reference RuntimeManager (stub backend, native DSL-437 test runtime), recorded by "
                  "tools/record-raes-runtime.py",
        "case": name,
        "scenario_sha256": hashlib.sha256(source.encode("utf-8")).hexdigest(),
        "policy_address": policy.address,
        "clock_address": policy.clock_address,
        "step_ticks": step_ticks,
        "participants": participants,
        "operations": operations,
        "history": history,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--oracle", default=ORACLE, help="shared/raes-oracle directory")
    ap.add_argument("--out", default=os.path.join(REPO, "test", "fixtures", "raes-runtime"))
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.oracle))
    import raes_oracle_env  # noqa: F401 (sys.path: shims, RAES packages, RAES tests)

    os.makedirs(args.out, exist_ok=True)
    example = open(EXAMPLE, encoding="utf-8").read()
    for name, (edit, advances, reset) in CASES.items():
        source = example if edit is None else edit(example)
        if edit is not None:
            with open(os.path.join(args.out, f"{name}.sdl.yaml"), "w", encoding="utf-8") as f:
                f.write(source)
        fixture = record(name, source, advances, reset)
        with open(os.path.join(args.out, f"{name}.json"), "w", encoding="utf-8") as f:
            json.dump(fixture, f, indent=1, default=str)
            f.write("\n")
        attempts = sum(len(o["attempts"]) for o in fixture["operations"])
        print(f"{name}: {len(fixture['operations'])} operations, {attempts} attempts", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
