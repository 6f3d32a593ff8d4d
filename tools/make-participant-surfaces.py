"""Writes test/fixtures/raes-compile/participant-surfaces.sdl.yaml: the evidence-loop example with every
participant surface RAES compiles through its ref index (accounts, networks, services, content items,
templates, starting assertions, interactive access, view transitions, mixed control), including refs that
resolve to nothing (entities) or to several addresses (a bare name two sections share).

    python3 tools/make-participant-surfaces.py test/fixtures/raes-compile/participant-surfaces.sdl.yaml
"""
import copy
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
src = yaml.safe_load((REPO / "examples" / "enterprise-participant-evidence-loop.sdl.yaml").read_text())
d = copy.deepcopy(src)
d["name"] = "participant-surfaces"
d["description"] = "The evidence-loop example with every participant surface RAES compiles through its ref index: accounts, networks, services, content items, templates, starting assertions, interactive access, view transitions and mixed control."
d["accounts"] = {
    "portal-admin": {"username": "admin", "node": "customer-portal"},
    "db-reader": {"username": "reader", "node": "customer-db"},
    "http": {"username": "web", "node": "customer-portal"},
}
d["content"]["participant-observation"]["items"] = [{"name": "login-form"}, {"name": "banner"}]
agent = d["agents"]["participant-agent"]
agent["starting_accounts"] = ["portal-admin", "db-reader"]
agent["initial_knowledge"] = {
    "hosts": ["red-workbench", "customer-portal"],
    "subnets": ["dmz-net", "redteam-net"],
    "services": ["ssh", "http", "syslog", "ssh"],
    "accounts": ["db-reader", "portal-admin"],
}
agent["starting_assertions"] = ["portal-reachable"]
d["assertions"]["portal-reachable"] = {"proposition": "participant-observation-recorded", "role": "precondition", "polarity": "positive"}
agent["authority_anchors"] = ["enterprise-participant", "task-brief", "accounts.portal-admin", "http", "conditions.wazuh-manager-health", "assertions.boundary-checks-recorded"]
agent["operating_scope"] = ["nodes.customer-portal.services.http", "content.task-brief", "dmz-net", "infrastructure.internal-net", "customer-db", "postgres", "nodes.customer-portal"]
agent["interactive_access"] = {
    "workbench-shell": {"target_ref": "nodes.red-workbench", "channel": "ssh"},
    "admin-desktop": {"target_ref": "customer-portal", "channel": "rdp", "account_ref": "accounts.portal-admin"},
}
d["agents"]["supervisor-agent"] = {"entity": "enterprise-defender", "authority_anchors": ["enterprise-defender"], "operating_scope": ["nodes.customer-portal", "dmz-net"]}
d["behavior_specifications"]["controlled-participant"] = {
    "semantic_version": "1.0.0",
    "participant_refs": ["supervisor-agent"],
    "authority_scope_refs": ["nodes.customer-portal", "accounts.portal-admin", "dmz-net", "login-form"],
    "behavior_mode": "mixed-control",
    "mixed_control": {
        "participant_ref": "supervisor-agent",
        "policy_revision": "1.0.0",
        "order_strategy": "total-effective-order",
        "initial_state_ref": "autonomous",
        "dispositions": {"duplicate": "idempotent-if-equivalent", "stale": "reject-no-state-change", "revoked": "reject-no-state-change", "late": "reject-no-state-change", "concurrent": "order-then-revalidate", "conflict": "reject-no-state-change"},
        "controller_states": {
            "supervised": {"controller_ref": "participant-agent", "authority_basis_refs": ["entities.enterprise-participant"], "scope_refs": ["nodes.customer-portal"], "policy_revision": "1.0.0", "valid_from_order": 11, "valid_until_order": 99, "authority_status": "active", "evidence_refs": ["content.wazuh-evidence", "login-form", "content.participant-observation.items.banner"]},
            "autonomous": {"controller_ref": "self", "authority_basis_refs": ["entities.enterprise-defender"], "scope_refs": ["nodes.customer-portal", "dmz-net"], "policy_revision": "1.0.0", "valid_from_order": 0, "valid_until_order": 10, "authority_status": "active", "evidence_refs": ["content.participant-observation"]},
            "pending": {"controller_ref": "self", "authority_basis_refs": ["entities.enterprise-defender"], "scope_refs": ["nodes.customer-portal"], "policy_revision": "1.0.0", "valid_from_order": 10, "valid_until_order": 11, "authority_status": "active", "evidence_refs": ["entities.enterprise-defender"]},
        },
        "transitions": {
            "approve-supervision": {"transition_kind": "approval", "from_state_ref": "pending", "to_state_ref": "supervised", "policy_revision": "1.0.0", "expected_state_revision": 1, "resulting_state_revision": 2, "effective_order": 11, "valid_from_order": 0, "valid_until_order": 11, "proposal_ref": "propose-supervision", "proposal_revision": 1, "evidence_refs": ["content.wazuh-evidence", "login-form", "content.participant-observation.items.banner"]},
            "propose-supervision": {"transition_kind": "proposal", "from_state_ref": "autonomous", "to_state_ref": "pending", "policy_revision": "1.0.0", "expected_state_revision": 0, "resulting_state_revision": 1, "effective_order": 10, "valid_from_order": 0, "valid_until_order": 10, "evidence_refs": ["entities.enterprise-defender", "content.task-brief"]},
        },
    },
    "extension_policy": "closed",
}
b = d["observation_boundaries"]["participant-view"]
b["hidden_refs"] += ["content.portal-banner", "Portal-Hint", "decoy-credentials", "old-notes"]
b["view_rules"] += [
    {"information_ref": "content.portal-banner", "boundary_class": "tool_output", "disposition": "disclosed", "disclosure_rule": "Shown with the portal response.", "visibility_basis": "The banner is disclosed by the portal."},
    {"information_ref": "Portal-Hint", "boundary_class": "instruction", "disposition": "inferred", "visibility_basis": "The participant infers the hint from the brief."},
    {"information_ref": "decoy-credentials", "boundary_class": "tool_output", "disposition": "deceptive", "visibility_basis": "A planted decoy."},
    {"information_ref": "old-notes", "boundary_class": "starter_file", "disposition": "concealed", "visibility_basis": "Withdrawn before the start."},
]
b["view_transitions"] = [
    {"transition_id": "portal-concealed", "transition_kind": "concealment", "information_ref": "nodes.customer-portal.services.http", "trigger": "episode closes", "effective_from": "episode close", "effective_order": 7, "history_event_type": "episode_close", "from_disposition": "discovered", "to_disposition": "concealed", "evidence_refs": ["content.participant-observation"], "certainty": "certain", "latency_profile": "at close"},
    {"transition_id": "portal-discovered", "transition_kind": "discovery", "information_ref": "nodes.customer-portal.services.http", "trigger": "the probe completes", "effective_from": "probe completion", "effective_order": 2, "history_event_type": "observation_emitted", "action_instance_id": "probe-1", "from_disposition": "hidden", "to_disposition": "discovered", "evidence_refs": ["content.participant-observation"], "certainty": "certain", "latency_profile": "terminal observation latency", "realized_backend_disclosure": "terminal observation"},
    {"transition_id": "hint-disclosed", "transition_kind": "disclosure", "information_ref": "Portal-Hint", "trigger": "the probe completes", "effective_from": "probe completion", "effective_order": 3, "history_event_type": "action_attempted", "action_instance_id": "probe-1", "from_disposition": "inferred", "to_disposition": "disclosed", "disclosure_rule": "Disclosed after the probe.", "evidence_refs": ["content.participant-observation"], "certainty": "likely", "latency_profile": "immediate"},
]
yaml.safe_dump(d, open(sys.argv[1], "w"), sort_keys=False, width=100)
