"""Records RAES's participant views, v1 scheduler state, operation status, pacing and clock jumps as fixtures.

    RAES_PY=<RAES checkout> python3 tools/record-raes-views.py [--oracle DIR] [--out DIR]

--oracle is shared/raes-oracle (default: $RAES_ORACLE_DIR, else ../shared/raes-oracle beside the repository);
it puts RAES and its shims on sys.path. --out defaults to test/fixtures/raes-views.

Every case drives RAES's own RuntimeManager (stub backend + the native participant runtime of RAES's DSL-437
tests, as tools/record-raes-runtime.py does) and reads RAES's views from RAES's own RuntimeControlPlane over the
manager's snapshot (`get_participant_status_view`, `get_participant_history_view`, `get_participant_context_view`),
serialised as RAES's HTTP routes answer them (`model_dump(mode="json")`).

Files:
- views.json: the example (v1) after apply, after one advance, after the attempt bound, and after a coordinated
  reset (reset_time + run_due): each participant's status view, the history view of every episode, a context view,
  and RAES's scheduler state (`participant_autonomous_execution_states`) field for field.
- open-operations.json: RAES's `open_operation_refs` over a set of control-plane operation records, and
  the wire shape of an `OperationStatus` with its diagnostics.
- pacing.json: RAES's wall pacing (`seconds_per_tick` = tick period / pacing_ratio) of progression variants,
  the attempts of a real_time variant advanced cadence tick by cadence tick, and the service state RAES writes
  on pacing loss.
- jump.json: `jump_time` on a clock without `supports_jump`, on a may_jump clock past the next cadence tick, and to
  exactly the next cadence tick (then the attempt it runs and the scheduler state).
Variant scenarios are written next to their fixture as <case>.sdl.yaml, so raes-ts loads the text RAES ran.
Wall times (`generated_at`, `timestamp`, ...) are kept as RAES wrote them; tests compare their format only.
"""
from __future__ import annotations

import argparse, json, os, sys
from dataclasses import asdict, replace

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.environ.get("RAES_ORACLE_DIR") or os.path.join(REPO, "..", "shared", "raes-oracle")
EXAMPLE = os.path.join(REPO, "examples", "enterprise-participant-evidence-loop.sdl.yaml")
CONTEXT_VIEW_REF = "participant.view.participant-view"


def edit(text: str, fn) -> str:
    payload = yaml.safe_load(text)
    fn(payload)
    return yaml.safe_dump(payload, sort_keys=False)


def real_time(payload, period=(1, 100), pacing=None, mode="real_time", drift=None):
    payload["time_domains"]["scenario"]["tick_period_seconds"] = {"numerator": period[0], "denominator": period[1]}
    progression = payload["time_progression_policies"]["scenario-progression"]
    progression["advancement_mode"] = mode
    progression.pop("step_ticks", None)
    if pacing is not None:
        progression["pacing_ratio"] = {"numerator": pacing[0], "denominator": pacing[1]}
    if drift is not None:
        progression["drift_bound_ticks"] = drift
    payload["behavior_specifications"]["participant-behavior"]["autonomous_execution"]["max_action_attempts"] = 4


def may_jump(payload):
    clock = payload["clocks"]["scenario-clock"]
    clock["monotonicity"] = "may_jump"
    clock["supports_jump"] = True
    payload["behavior_specifications"]["participant-behavior"]["autonomous_execution"]["max_action_attempts"] = 4


def setup(source: str):
    import test_dsl_437_benign_participant_execution as T
    from raes.parser import parse_sdl
    from raes_backend_stubs.stubs import create_stub_target
    from raes_processor.compiler import compile_runtime_model
    from raes_runtime.manager import RuntimeManager

    scenario = parse_sdl(source)
    model = compile_runtime_model(scenario)
    policy = next(s.autonomous_execution for s in model.behavior_specifications.values()
                  if s.autonomous_execution is not None)
    runtime = T._NativeParticipantRuntime()
    calls: list = []
    original = runtime._model_action

    def model_action(request, snapshot, *, episode_id):
        calls.append({"participant_address": request.participant_address,
                      "action_instance_id": request.action_instance_id, "episode_id": episode_id,
                      "observation_point": request.temporal_contexts[0].observation_point})
        return original(request, snapshot, episode_id=episode_id)

    runtime._model_action = model_action
    target = replace(create_stub_target(), manifest=T._autonomous_manifest(model), participant_runtime=runtime)
    manager = RuntimeManager(target)
    return scenario, model, policy, target, manager, calls


def diagnostics(result) -> list:
    return [{"code": d.code, "domain": d.domain, "address": d.address, "severity": d.severity.value}
            for d in result.diagnostics]


def views(target, snapshot, participants) -> dict:
    from raes_runtime.control_plane import RuntimeControlPlane

    plane = RuntimeControlPlane(target, initial_snapshot=snapshot)
    out = {}
    for p in participants:
        episodes = list(dict.fromkeys(
            [e["episode_id"] for e in snapshot.participant_episode_history.get(p, [])]
            + [e["episode_id"] for e in snapshot.participant_behavior_history.get(p, [])]))
        status = plane.get_participant_status_view(p)
        context = plane.get_participant_context_view(p, view_ref=CONTEXT_VIEW_REF)
        context_episode = plane.get_participant_context_view(p, view_ref=CONTEXT_VIEW_REF, episode_id=episodes[-1])
        out[p] = {
            "status": status.model_dump(mode="json"),
            "history": {e: plane.get_participant_history_view(p, e).model_dump(mode="json") for e in episodes},
            "context": context.model_dump(mode="json"),
            "context_episode": context_episode.model_dump(mode="json"),
        }
    out["unknown"] = {
        "status": plane.get_participant_status_view("participant.behavior.nobody"),
        "history": plane.get_participant_history_view(participants[0], "no-such-episode"),
    }
    return out


def states(snapshot) -> dict:
    return {k: dict(v) for k, v in snapshot.participant_autonomous_execution_states.items()}


def record_views(example: str) -> dict:
    scenario, model, policy, target, manager, calls = setup(example)
    participants = list(policy.participant_addresses)
    step = next(p.step_ticks for p in model.time_model.progression_policies
                if p.address == policy.progression_policy_address)
    stages = []

    def stage(name, result):
        assert result.success, (name, diagnostics(result))
        snapshot = manager.snapshot
        clock = snapshot.time_model_state.clocks[policy.clock_address].coordinate
        stages.append({"stage": name, "clock": {"segment": clock.segment, "tick": clock.tick},
                       "attempts": len(calls), "scheduler_states": states(snapshot),
                       "services": {k: dict(v) for k, v in snapshot.participant_execution_services.items()},
                       "views": views(target, snapshot, participants)})

    stage("apply", manager.apply(manager.plan(scenario)))
    stage("advance-1", manager.advance_time(policy.clock_address, ticks=step))
    stage("advance-2", manager.advance_time(policy.clock_address, ticks=step))
    stage("reset", manager.reset_time(policy.clock_address))
    stage("run-due", manager.run_due_participant_actions())
    return {"policy_address": policy.address, "clock_address": policy.clock_address, "step_ticks": step,
            "participants": participants, "context_view_ref": CONTEXT_VIEW_REF, "stages": stages}


def record_open_operations() -> dict:
    from raes_contracts.diagnostics import Diagnostic
    from raes_contracts.planning import RuntimeDomain
    from raes_contracts.runtime_state import OperationReceipt, OperationState, OperationStatus
    from raes_runtime.control_plane_store import ControlPlaneOperationRecord
    from raes_runtime.participant_retrieval import _open_participant_operation_refs

    p, other = "participant.behavior.participant-agent", "participant.behavior.other"
    rows = [
        ("op-c", RuntimeDomain.PARTICIPANT, OperationState.RUNNING, [p]),
        ("op-a", RuntimeDomain.PARTICIPANT, OperationState.ACCEPTED, [p]),
        ("op-b", RuntimeDomain.PARTICIPANT, OperationState.SUCCEEDED, [p]),
        ("op-d", RuntimeDomain.PARTICIPANT, OperationState.RUNNING, [other]),
        ("op-e", RuntimeDomain.PROVISIONING, OperationState.RUNNING, [p]),
        ("op-f", RuntimeDomain.PARTICIPANT, OperationState.FAILED, [p, other]),
        ("op-g", RuntimeDomain.PARTICIPANT, OperationState.RUNNING, [other, p]),
    ]
    records = {}
    for op_id, domain, state, changed in rows:
        status = OperationStatus(operation_id=op_id, domain=domain, state=state, submitted_at="2026-01-01T00:00:00Z",
                                 updated_at="2026-01-01T00:00:00Z", changed_addresses=list(changed))
        receipt = OperationReceipt(operation_id=op_id, domain=domain, submitted_at="2026-01-01T00:00:00Z",
                                   accepted=True)
        records[op_id] = ControlPlaneOperationRecord(receipt=receipt, status=status, idempotency_key="",
                                                     request_fingerprint="")
    failed = OperationStatus(
        operation_id="op-f", domain=RuntimeDomain.PARTICIPANT, state=OperationState.FAILED,
        submitted_at="2026-01-01T00:00:00Z", updated_at="2026-01-01T00:00:01Z",
        diagnostics=[Diagnostic(code="runtime.participant-action-failed", domain="participant", address=p,
                                message="the action failed")],
        changed_addresses=[p])
    status_wire = json.loads(json.dumps(asdict(failed), default=lambda v: getattr(v, "value", str(v))))
    return {
        "operations": [{"operation_id": r[0], "domain": r[1].value, "state": r[2].value, "changed_addresses": r[3]}
                       for r in rows],
        "open_operation_refs": {p: _open_participant_operation_refs(records, p),
                                other: _open_participant_operation_refs(records, other)},
        "operation_status": status_wire,
        "operation_states": [s.value for s in OperationState],
        "runtime_domains": [d.value for d in RuntimeDomain],
    }


def record_pacing(example: str, out: str) -> dict:
    from raes.parser import parse_sdl
    from raes_processor.compiler import compile_runtime_model
    from raes_runtime.participant_clock_driver import ParticipantClockDriver, _automatic_clock_rates

    variants = {
        "pacing-stepped": example,
        "pacing-real-time": edit(example, lambda p: real_time(p, (1, 100))),
        "pacing-dilated": edit(example, lambda p: real_time(p, (1, 10), (2, 1), "dilated")),
        "pacing-slow-dilated": edit(example, lambda p: real_time(p, (3, 2), (1, 3), "dilated")),
        "pacing-drift-bound": edit(example, lambda p: real_time(p, (1, 20), None, "real_time", 2)),
    }
    rates = {}
    for name, text in variants.items():
        if text is not example:
            with open(os.path.join(out, f"{name}.sdl.yaml"), "w", encoding="utf-8") as f:
                f.write(text)
        model = compile_runtime_model(parse_sdl(text))
        policies = [s.autonomous_execution for s in model.behavior_specifications.values()
                    if s.autonomous_execution is not None]
        found = _automatic_clock_rates(policies, model.time_model)
        rates[name] = [{"clock_address": r.clock_address, "seconds_per_tick": [r.seconds_per_tick.numerator,
                                                                              r.seconds_per_tick.denominator]}
                       for r in found]
    # The real_time variant, advanced as RAES's wall driver advances it: straight to the next cadence tick.
    scenario, model, policy, target, manager, calls = setup(variants["pacing-real-time"])
    assert manager.apply(manager.plan(scenario)).success
    advances = []
    for _ in range(5):
        state = next(iter(manager.snapshot.participant_autonomous_execution_states.values()))
        current = manager.snapshot.time_model_state.clocks[policy.clock_address].coordinate.tick
        if state["lifecycle_state"] != "running":
            break
        result = manager.advance_time(policy.clock_address, ticks=state["next_tick"] - current)
        advances.append({"ticks": state["next_tick"] - current, "success": result.success})
    real_time_run = {"advances": advances, "attempts": list(calls), "scheduler_states": states(manager.snapshot)}
    # Pacing loss: the service state RAES's wall driver writes when it fails.
    driver = ParticipantClockDriver([policy], model.time_model, snapshot=lambda: manager.snapshot,
                                    advance=lambda *a: None, service_due=lambda: None, lock=__import__("threading").RLock())
    lost = driver._pacing_failure_snapshot(manager.snapshot, RuntimeError("late"))
    return {"rates": rates, "real_time_run": real_time_run,
            "service_before": dict(manager.snapshot.participant_execution_services[policy.address]),
            "service_after_pacing_loss": dict(lost.participant_execution_services[policy.address])}


def record_jump(example: str, out: str) -> dict:
    jump_text = edit(example, may_jump)
    with open(os.path.join(out, "jump.sdl.yaml"), "w", encoding="utf-8") as f:
        f.write(jump_text)
    answers = {}
    # A clock without supports_jump.
    scenario, model, policy, target, manager, calls = setup(example)
    assert manager.apply(manager.plan(scenario)).success
    try:
        result = manager.jump_time(policy.clock_address, tick=10)
        answers["unsupported"] = {"success": result.success, "diagnostics": diagnostics(result)}
    except Exception as exc:  # RAES raises for a clock that cannot jump
        answers["unsupported"] = {"raised": type(exc).__name__, "message": str(exc)}
    # A may_jump clock: past the next cadence tick, then exactly to it, then backwards.
    scenario, model, policy, target, manager, calls = setup(jump_text)
    assert manager.apply(manager.plan(scenario)).success

    def clock():
        c = manager.snapshot.time_model_state.clocks[policy.clock_address]
        return {"segment": c.coordinate.segment, "tick": c.coordinate.tick, "sequence": c.sequence,
                "last_transition": c.history[-1].model_dump(mode="json")}

    steps = []
    for label, tick in (("past-cadence", 25), ("to-cadence", 10), ("backwards", 3), ("forward-within", 9),
                        ("to-next-cadence", 20)):
        before = len(calls)
        try:
            result = manager.jump_time(policy.clock_address, tick=tick)
            answer = {"success": result.success, "diagnostics": diagnostics(result),
                      "changed_addresses": list(result.changed_addresses)}
        except Exception as exc:
            answer = {"raised": type(exc).__name__, "message": str(exc)}
        steps.append({"label": label, "tick": tick, **answer, "clock": clock(), "attempts": calls[before:],
                      "scheduler_states": states(manager.snapshot)})
    answers["may_jump"] = steps
    return answers


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--oracle", default=ORACLE, help="shared/raes-oracle directory")
    ap.add_argument("--out", default=os.path.join(REPO, "test", "fixtures", "raes-views"))
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.oracle))
    import raes_oracle_env  # noqa: F401 (sys.path: shims, RAES packages, RAES tests)

    os.makedirs(args.out, exist_ok=True)
    example = open(EXAMPLE, encoding="utf-8").read()
    source = "RAES Python reference (RuntimeManager + RuntimeControlPlane, stub backend, native DSL-437 test " \
             "runtime), recorded by tools/record-raes-views.py"
    for name, fixture in (("views", record_views(example)), ("open-operations", record_open_operations()),
                          ("pacing", record_pacing(example, args.out)), ("jump", record_jump(example, args.out))):
        with open(os.path.join(args.out, f"{name}.json"), "w", encoding="utf-8") as f:
            json.dump({"source": source, **fixture}, f, indent=1, default=str)
            f.write("\n")
        print(f"{name}: written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
