"""Records RAES's autonomous limit gaps for the v1 example (max_action_attempts 2), as a fixture.

    RAES_PY=<RAES checkout> python3 tools/record-raes-manifest-limits.py [ORACLE_DIR] > test/fixtures/raes-outcomes/v1-manifest-limits.json

RAES's DSL-437 test manifest for the example, one participant_runtime limit changed at a time, answered by
RAES's participant_autonomous_execution_capability_gaps (what its planner reports as
participant.autonomous-execution-unsupported). Tests read the JSON; they never need Python.
"""
import json, os, sys
from dataclasses import replace

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "..", "shared", "raes-oracle"))
import raes_oracle_env  # noqa: E402,F401
import test_dsl_437_benign_participant_execution as T  # noqa: E402
from raes.parser import parse_sdl  # noqa: E402
from raes_processor.compiler import compile_runtime_model  # noqa: E402
from raes_backend_protocols.capability_admission import participant_autonomous_execution_capability_gaps  # noqa: E402

example = os.path.join(REPO, "examples", "enterprise-participant-evidence-loop.sdl.yaml")
model = compile_runtime_model(parse_sdl(open(example, encoding="utf-8").read()))
manifest = T._autonomous_manifest(model)
policies = [s.autonomous_execution for s in model.behavior_specifications.values() if s.autonomous_execution]
answers = {}
for name, value in (("max_autonomous_occurrences", 1), ("max_autonomous_occurrences", 2),
                    ("max_autonomous_action_attempts", 1)):
    runtime = replace(manifest.participant_runtime, **{name: value})
    changed = replace(manifest, capabilities=replace(manifest.capabilities, participant_runtime=runtime))
    answers[f"{name}={value}"] = list(participant_autonomous_execution_capability_gaps(changed, policies, model.time_model))
try:
    replace(manifest.participant_runtime, max_autonomous_occurrences=None)
    answers["max_autonomous_occurrences=None"] = "accepted"
except ValueError as error:
    answers["max_autonomous_occurrences=None"] = f"manifest invalid: {error}"
print(json.dumps({"source": "RAES participant_autonomous_execution_capability_gaps, recorded by tools/record-raes-manifest-limits.py",
                  "answers": answers}, indent=1))
