"""Records RAES's verdict on autonomous manifests with and without execution control (tests never need Python).

    RAES_PY=<RAES checkout> python3 tools/record-raes-manifest-control.py [ORACLE_DIR]

Writes test/fixtures/raes-control/manifest-control.json. For each example manifest (v1, v2, v3) RAES reads the
manifest as record-admission.py does: RAES's stub manifest for the example scenario, its participant_runtime
overlaid with the JSON file's keys, validated by RAES's BackendManifestV2Model. A key the JSON file leaves out
is removed from the stub too, so RAES's own default applies, as it would to the file alone. Per case: `valid`,
or `invalid` with RAES's message (its manifest model raises a ValueError; RAES has no code for it).
`file-as-is` leaves every key the file leaves out at RAES's default (the file alone, as RAES would read it).
"""
import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORACLE = sys.argv[1] if len(sys.argv) > 1 else str(ROOT.parent / "shared" / "raes-oracle")
sys.path.insert(0, ORACLE)
import raes_oracle_env  # noqa: E402,F401
import raes_v3_trace as trace  # noqa: E402
from pydantic import ValidationError  # noqa: E402
from raes_manifest_stub import stub_wire_manifest  # noqa: E402

EXAMPLES = {
    "v1": ("enterprise-participant-evidence-loop.sdl.yaml", "harness-backend.manifest.json"),
    "v2": ("enterprise-participant-activity-v2.sdl.yaml", "harness-backend-v2.manifest.json"),
    "v3": ("enterprise-participant-resource-v3.sdl.yaml", "harness-backend-v3.manifest.json"),
}
CONTROL_KEYS = ("supports_execution_control", "supported_execution_control_actions")
ACTIONS = ["start", "pause", "resume", "drain", "reset", "teardown"]
CASES = {
    "file-as-is": lambda rt: None,
    "without-execution-control": lambda rt: [rt.pop(k, None) for k in CONTROL_KEYS],
    "execution-control-false": lambda rt: rt.update(supports_execution_control=False, supported_execution_control_actions=[]),
    "execution-control-all-actions": lambda rt: rt.update(supports_execution_control=True, supported_execution_control_actions=ACTIONS),
    "execution-control-without-teardown": lambda rt: rt.update(supports_execution_control=True, supported_execution_control_actions=ACTIONS[:-1]),
}


def verdict(source, manifest_json, strict=False):
    wire = stub_wire_manifest(source)
    runtime = wire["capabilities"]["participant_runtime"]
    given = manifest_json["participant_runtime"]
    # `strict`: every key the file leaves out takes RAES's default, not the stub's value.
    for key in list(runtime) if strict else CONTROL_KEYS:
        if key not in given and key not in trace.VOCABULARY_KEYS:
            runtime.pop(key, None)
    for key, value in given.items():
        if key in trace.ParticipantRuntimeCapabilitiesModel.model_fields and key not in trace.VOCABULARY_KEYS:
            runtime[key] = copy.deepcopy(value)
    try:
        trace.BackendManifestV2Model.model_validate(wire)
    except (ValidationError, ValueError) as exc:
        errors = exc.errors() if isinstance(exc, ValidationError) else [{"msg": str(exc)}]
        return {"verdict": "invalid", "messages": sorted({e["msg"] for e in errors})}
    return {"verdict": "valid"}


def main():
    out = {}
    for name, (scenario, manifest) in EXAMPLES.items():
        source = (ROOT / "examples" / scenario).read_text()
        base = json.loads((ROOT / "examples" / manifest).read_text())
        for case, edit in CASES.items():
            manifest_json = copy.deepcopy(base)
            edit(manifest_json["participant_runtime"])
            out[f"{name}/{case}"] = verdict(source, manifest_json, strict=case == "file-as-is")
    about = "RAES python reference (RAES_PY), made by tools/record-raes-manifest-control.py"
    path = ROOT / "test" / "fixtures" / "raes-control" / "manifest-control.json"
    path.write_text(json.dumps({"about": about, "cases": out}, indent=1, sort_keys=True) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
