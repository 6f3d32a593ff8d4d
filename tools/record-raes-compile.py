"""Records what the RAES Python reference compiles for every RAES-valid scenario raes-ts has, for the
compile-equality test (test/compiler/raes-equality.test.ts). Tests read the JSON only.

    npx tsx tools/sdl-differential/generate.ts /tmp/raes-cases
    RAES_PY=<RAES checkout> python3 tools/record-raes-compile.py /tmp/raes-cases [ORACLE_DIR]

Cases: the examples in examples/, the *.sdl.yaml fixtures under test/fixtures/, and every case of
/tmp/raes-cases (the SDL differential) that RAES validates. For each, the records raes-ts compiles too:
autonomous policies, behavior specifications, participants, action contracts, observation boundaries,
tool affordances and the time model (domains, clocks, progression policies, constraints), each as RAES's
dataclass fields without `spec` (the authored text). Identical records are stored once, by digest.
`policy_digests` is RAES's scheduler-state policy digest of each policy (`_policy_digest`).
"""
import dataclasses, hashlib, json, os, sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ORACLE = sys.argv[2] if len(sys.argv) > 2 else str(REPO.parent / "shared" / "raes-oracle")
sys.path.insert(0, ORACLE)
import raes_oracle_env  # noqa: E402,F401
from raes import SDLParseError, SDLValidationError, parse_sdl  # noqa: E402
from raes_processor.compiler.pipeline import compile_runtime_model  # noqa: E402
from raes_runtime.participant_scheduler_policy import _policy_digest  # noqa: E402


def plain(value):
    if dataclasses.is_dataclass(value):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "spec"}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if hasattr(value, "value") and not isinstance(value, (int, str, float, bool)):
        return value.value
    return value


def compiled(text):
    try:
        model = compile_runtime_model(parse_sdl(text))
    except (SDLParseError, SDLValidationError):
        return None
    out = {
        "participant_behaviors": plain(model.participant_behaviors),
        "behavior_specifications": {},
        "autonomous_policies": {},
        "action_contracts": plain(model.action_contracts),
        "observation_boundaries": plain(model.observation_boundaries),
        "tool_affordances": plain(model.tool_affordances),
    }
    for address, spec in model.behavior_specifications.items():
        record = plain(spec)
        policy = record.pop("autonomous_execution")
        out["behavior_specifications"][address] = record
        if policy is not None:
            out["autonomous_policies"][policy["address"]] = policy
    time = model.time_model
    out["policy_digests"] = {
        spec.autonomous_execution.address: _policy_digest(spec.autonomous_execution, time)
        for spec in model.behavior_specifications.values()
        if spec.autonomous_execution is not None
    }
    for kind, items in (("time_domains", time.domains), ("clocks", time.clocks),
                        ("progression_policies", time.progression_policies), ("temporal_constraints", time.constraints)):
        out[kind] = {item.address: plain(item) for item in items}
    return out


def main():
    case_dir = Path(sys.argv[1])
    sources = {}
    for path in sorted((REPO / "examples").glob("*.sdl.yaml")):
        sources[f"examples/{path.name}"] = path
    for path in sorted((REPO / "test" / "fixtures").rglob("*.sdl.yaml")):
        sources[str(path.relative_to(REPO))] = path
    for path in sorted(case_dir.glob("*.sdl.yaml")):
        sources[f"sdl-differential/{path.name.removesuffix('.sdl.yaml')}"] = path
    records, cases, invalid = {}, {}, []
    for name, path in sources.items():
        result = compiled(path.read_text(encoding="utf-8"))
        if result is None:
            invalid.append(name)
            continue
        case = {"policy_digests": result.pop("policy_digests")}
        for kind, by_address in result.items():
            case[kind] = {}
            for address, record in by_address.items():
                text = json.dumps(record, sort_keys=True)
                digest = hashlib.sha256(text.encode()).hexdigest()[:16]
                records[digest] = record
                case[kind][address] = digest
        cases[name] = case
    out = REPO / "test" / "fixtures" / "raes-compile" / "raes-compiled.json"
    out.write_text(json.dumps({"raes_reference": "OpenRAE/rae python (RAES_PY)", "cases": cases,
                               "records": records}, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(cases)} RAES-valid cases ({len(records)} distinct records); "
          f"RAES-invalid, not compiled: {len(invalid)}", file=sys.stderr)


if __name__ == "__main__":
    main()
