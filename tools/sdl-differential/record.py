"""Records the RAES reference's verdict and issue codes for every emitted differential scenario.

Run once, by hand (tests never need it):
  RAES_PY=/work/raes-py python3 tools/sdl-differential/record.py CASE_DIR OUT_JSON [ORACLE_DIR]
CASE_DIR holds <id>.sdl.yaml files written by generate.ts. OUT_JSON gets, per case, RAES's
verdict (valid/invalid), the stage that decided it, its sorted code set and the messages.

Codes: parse-stage diagnostics carry RAES codes. Semantic issues that RAES's validator renders
from a coded issue (participant.*, objective.*) keep that code; the recorder reads it by
wrapping the validator's renderers. RAES renders some semantic errors without any code
(plain prose, e.g. "Agent 'a' references undefined entity 'e'"); those get the raes-ts code
for the same rule through UNCODED below, so the fixture shows which are translations.
"""

import json
import os
import re
import sys
from pathlib import Path

ORACLE = sys.argv[3] if len(sys.argv) > 3 else "/work/shared/raes-oracle"
sys.path.insert(0, ORACLE)
import raes_oracle_env  # noqa: E402,F401
from raes import SDLParseError, SDLValidationError, parse_sdl  # noqa: E402
from raes.validator import _content_objectives as co  # noqa: E402

# RAES prose (no code) -> the raes-ts code for the same rule.
UNCODED = [
    (r"^Agent '[^']*' references undefined entity", "participant.agent-entity-unbound"),
    (r"^Agent '[^']*' initial_knowledge (host|service|subnet|account) ", "participant.agent-initial-knowledge-unbound"),
    (r"^Agent '[^']*' allowed_subnet ", "participant.agent-allowed-subnet-unbound"),
    (r"^Agent '[^']*' (authority_anchor|operating_scope|starting_account)", "sdl.ref.unbound"),
    (r"^Content '[^']*' target", "sdl.ref.unbound"),
    (r"^Action contract '[^']*' interaction\[\d+\] (target|shared_state_ref) ", "sdl.ref.unbound"),
    (r"tool_ref '[^']*' is ambiguous", "participant.tool-affordance-tool-ref-ambiguous"),
    (r"tool affordance '[^']*' tool_ref ", "participant.tool-affordance-tool-ref-unbound"),
    (r"^Clock '[^']*' time_domain_ref '[^']*' does not reference", "time.clock-time-domain-unbound"),
    (r"^Time progression policy '[^']*' clock_ref '[^']*' does not reference", "time.progression-clock-unbound"),
    (r"^Time progression policy '[^']*' duplicates clock_ref", "time.progression-clock-duplicate"),
    (r"^Time progression policy '[^']*' requires (reset|replay) behavior", "time.progression-reset-unsupported"),
    (r"^Temporal constraint '[^']*' clock_ref '[^']*' does not reference", "time.constraint-clock-unbound"),
    (r"^Temporal constraint '[^']*' subject_ref ", "time.constraint-subject-unbound"),
    (r"^Behavior specification '[^']*' authority_scope_ref '[^']*' (does not reference|is ambiguous)", "sdl.ref.unbound"),
    (r"mixed_control .*(authority_basis_ref|scope_ref|evidence_ref) '[^']*' (does not reference|is ambiguous)", "sdl.ref.unbound"),
    (r"mixed-control mode requires mixed_control$", "participant.mixed-control-missing"),
    (r"mixed_control requires behavior_mode mixed-control$", "participant.mixed-control-mode-mismatch"),
    (r"mixed_control must bind exactly one participant_ref owned by", "participant.mixed-control-participant-unbound"),
    (r"mixed_control policy_revision must match the behavior specification semantic_version", "participant.mixed-control-policy-revision-mismatch"),
    (r"controller_ref '[^']*' must reference a declared agent or self", "participant.mixed-control-controller-unbound"),
    (r"authority basis '[^']*' is not declared by controller", "participant.mixed-control-authority-outside-controller"),
    (r"scope_ref '[^']*' widens the behavior specification authority scope", "participant.mixed-control-scope-widens-specification"),
    (r"scope_ref '[^']*' is outside controller '[^']*' operating_scope", "participant.mixed-control-scope-outside-controller"),
    (r"mixed_control initial state cannot use revoked authority", "participant.mixed-control-initial-revoked"),
    (r"transition '[^']*' starts from revoked authority", "participant.mixed-control-transition-from-revoked"),
    (r"transition '[^']*' is late for its from-state validity", "participant.mixed-control-transition-outside-from-state"),
    (r"transition '[^']*' precedes its to-state validity", "participant.mixed-control-transition-outside-to-state"),
    (r"transition '[^']*' must start from its proposal's resulting state", "participant.mixed-control-answer-state-mismatch"),
    (r"transition '[^']*' must expect its proposal's resulting state revision", "participant.mixed-control-answer-revision-mismatch"),
    (r"handoff transition '[^']*' must change controller", "participant.mixed-control-handoff-same-controller"),
]

captured = []


def _wrap(name):
    original = getattr(co._ContentObjectivesMixin, name)

    def render(issue):
        message = original(issue)
        captured.append((message, issue.code))
        return message

    setattr(co._ContentObjectivesMixin, name, staticmethod(render))


_analyze_interactive_access = co.analyze_participant_interactive_access


def _interactive_access_issues(**kwargs):
    # RAES renders these issues as bare messages; keep each message's own RAES code.
    issues = _analyze_interactive_access(**kwargs)
    captured.extend((issue.message, issue.code) for issue in issues)
    return issues


co.analyze_participant_interactive_access = _interactive_access_issues

for _name in ("_format_participant_behavior_issue", "_format_objective_issue", "_format_participant_outcome_issue"):
    _wrap(_name)


def code_for_message(message):
    for rendered, code in captured:
        if rendered == message:
            return code
    for pattern, code in UNCODED:
        if re.search(pattern, message):
            return code
    return "raes.uncoded"


def _short(messages):
    # Messages are kept for review only; the tests compare verdicts and codes.
    return [m if len(m) <= 240 else m[:237] + "..." for m in messages[:6]]


def judge(text):
    captured.clear()
    try:
        parse_sdl(text)
    except SDLParseError as exc:
        codes = [d.code for d in exc.diagnostics] or ["sdl.parse"]
        messages = [f"{d.pointer}: {d.message}" for d in exc.diagnostics] or [exc.details]
        return {"verdict": "invalid", "stage": "parse", "codes": sorted(set(codes)), "messages": _short(messages)}
    except SDLValidationError as exc:
        codes = [code_for_message(m) for m in exc.errors]
        return {"verdict": "invalid", "stage": "semantic", "codes": sorted(set(codes)), "messages": _short(list(exc.errors))}
    return {"verdict": "valid", "stage": "semantic", "codes": [], "messages": []}


def main():
    case_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    results = {}
    for path in sorted(case_dir.glob("*.sdl.yaml")):
        results[path.name.removesuffix(".sdl.yaml")] = judge(path.read_text(encoding="utf-8"))
    out.write_text(json.dumps({"raes_reference": "OpenRAE/rae python (RAES_PY)", "cases": results}, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(results)} cases; valid {sum(r['verdict'] == 'valid' for r in results.values())}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        print(json.dumps(judge(Path(sys.argv[2]).read_text()), indent=1))
    else:
        main()
