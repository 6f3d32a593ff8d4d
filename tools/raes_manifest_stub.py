"""RAES's stub backend manifest that the manifest recorders overlay a raes-ts manifest on.

Import it after `raes_oracle_env` (the oracle directory on sys.path): it uses raes_v3_trace.py's stub,
as tools/record-raes-manifest-control.py and test/fixtures/v3-budget/record-admission.py read manifests.
"""
import raes_v3_trace as trace
from raes.parser import parse_sdl
from raes_processor.compiler import compile_runtime_model


def stub_wire_manifest(source):
    """RAES's stub manifest for the scenario `source`, in its wire form (JSON-ready dict).

    A v3 policy is read as v2 without its resource budget: the stub is RAES's v2 autonomous manifest.
    """
    v2 = trace.yaml.safe_load(source)
    for spec in v2.get("behavior_specifications", {}).values():
        policy = spec.get("autonomous_execution")
        if policy and policy.get("profile") == trace.V3:
            policy["profile"] = "participant-autonomous-execution/v2"
            policy.pop("resource_budget", None)
    base = trace.T._autonomous_manifest(compile_runtime_model(parse_sdl(trace.yaml.safe_dump(v2, sort_keys=False))))
    return trace.backend_manifest_v2_model(base).model_dump(mode="json")
