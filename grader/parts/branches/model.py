"""Part D's model: what a correct ``agstate/branches.py`` does, in plain Python (grading side).

The decision table, the evidence merge, the conflict records and the refund
graph's outcome: pure functions the rules compare the learner's answers with,
and the table's rows as examples. Nothing here judges (``checks.py`` does).
The model of the refund graph follows the provided branch tools
(``agstate/refund_tools.py``): which proposals each branch publishes for
given signals.
"""

RISK_LEVELS = ("low", "medium", "high")
BRANCHES = ("policy_check", "payment_lookup", "risk_review", "reply_draft")
EFFECTS = ("create_transfer", "send_email")
FACT_TYPES = ("evidence_added", "payment_found", "risk_assessed")
APPROVAL, REJECTION = "refund_approval_proposed", "refund_rejection_proposed"
PROPOSAL_TYPES = ("evidence_added", "payment_found", "risk_assessed", APPROVAL, REJECTION)
HIGH_RISK_INPUTS = ["risk_assessment", "human_override_or_rejection"]
# The conflict kinds of the decision table; the refund graph adds one of its own (_decide's rule 3).
TABLE_KINDS = ("stale_revision", "payment_id_mismatch", "effect_already_applied", "approval_conflicts_with_high_risk",
               "payment_not_confirmed", "amount_exceeds_payment")
CONTRADICTORY = "contradictory_decisions"  # an approval and a rejection both accepted
# The keys of open_conflict's record, and of the refund graph's output.
RECORD_KEYS = ["conflict_id", "current_revision", "kind", "proposals", "required_action", "resolution", "status", "stream_id"]
OUTPUT_KEYS = ["case", "conflicts", "effects_done", "events", "evidence", "proposals"]


# -- the decision table ------------------------------------------------------------------
def model_classify(current: dict, proposal: dict) -> dict:
    """The verdict the table gives: status, reason and the extra facts some rows carry."""
    kind, payload = proposal["type"], proposal["payload"]
    if proposal["expected_revision"] != current["revision"]:
        return {"status": "conflict", "reason": "stale_revision", "current_revision": current["revision"]}
    if kind == "evidence_added":
        return {"status": "accepted", "reason": None}
    if kind == "payment_found":
        if current["payment_id"] is not None and payload["payment_id"] != current["payment_id"]:
            return {"status": "conflict", "reason": "payment_id_mismatch"}
        return {"status": "accepted", "reason": None}
    if kind == "risk_assessed":
        if payload["risk_level"] not in RISK_LEVELS:
            return {"status": "rejected", "reason": "invalid_risk_level"}
        return {"status": "accepted", "reason": None}
    if kind == APPROVAL:
        if current["effects_applied"]:
            return {"status": "conflict", "reason": "effect_already_applied"}
        if current["risk_level"] == "high":
            return {"status": "conflict", "reason": "approval_conflicts_with_high_risk", "required_inputs": HIGH_RISK_INPUTS}
        if current["payment_id"] is None:
            return {"status": "conflict", "reason": "payment_not_confirmed"}
        if payload["amount"] > current["payment_amount"]:
            return {"status": "conflict", "reason": "amount_exceeds_payment"}
        return {"status": "accepted", "reason": None}
    if kind == REJECTION:
        if current["effects_applied"]:
            return {"status": "conflict", "reason": "effect_already_applied"}
        return {"status": "accepted", "reason": None}
    return {"status": "rejected", "reason": "unknown_proposal_type"}


def table_rows() -> list[tuple[dict, dict]]:
    """One hand-picked (case, proposal) per row and sub-row of the decision table, fresh unless stated.

    The table's own statement as examples: the classify rules check them
    before random cases, and ``tests/test_branches_reference.py`` pins the
    model and the reference on them.
    """
    base = {"revision": 2, "payment_id": "P-1", "payment_amount": 100, "risk_level": "low", "effects_applied": False}
    unpaid = {**base, "payment_id": None, "payment_amount": None}

    def proposal(kind, payload, revision=2):
        return {"event_id": "ev-1", "type": kind, "expected_revision": revision, "actor": "policy_check", "payload": payload}

    return [
        (base, proposal(APPROVAL, {"amount": 5}, revision=1)),
        (base, proposal("evidence_added", {"evidence_id": "e1"})),
        (unpaid, proposal("payment_found", {"payment_id": "P-2", "amount": 5})),
        (base, proposal("payment_found", {"payment_id": "P-2", "amount": 5})),
        (base, proposal("payment_found", {"payment_id": "P-1", "amount": 5})),
        (base, proposal("risk_assessed", {"risk_level": "critical"})),
        (base, proposal("risk_assessed", {"risk_level": "medium"})),
        ({**base, "effects_applied": True, "risk_level": "high"}, proposal(APPROVAL, {"amount": 5})),
        ({**unpaid, "risk_level": "high"}, proposal(APPROVAL, {"amount": 5})),
        (unpaid, proposal(APPROVAL, {"amount": 500})),
        (base, proposal(APPROVAL, {"amount": 101})),
        (base, proposal(APPROVAL, {"amount": 100})),
        ({**base, "effects_applied": True}, proposal(REJECTION, {"reason": "policy"})),
        (base, proposal(REJECTION, {"reason": "policy"})),
        (base, proposal("refund_requested", {})),
    ]


# -- evidence -------------------------------------------------------------------------------
def model_union(*lists, key: str = "id"):
    """The merged records sorted by ``key``; None when two records share a key but differ."""
    merged = {}
    for records in lists:
        for record in records:
            if record[key] in merged and merged[record[key]] != record:
                return None
            merged[record[key]] = record
    return [merged[k] for k in sorted(merged)]


# -- conflicts as data --------------------------------------------------------------------------
def model_conflict(case: dict, found: list[dict], kind: str, action: str) -> dict:
    """What ``open_conflict`` returns, but for its conflict_id (any stable non-empty str)."""
    return {"stream_id": case["case_id"], "status": "open", "kind": kind, "current_revision": case["revision"],
            "proposals": sorted(p["event_id"] for p in found), "required_action": action, "resolution": None}


def model_resolution(conflict: dict, decision: str, actor: str, rule: str) -> dict:
    """The one ``conflict_resolved`` event ``resolve_conflict`` appends for this decision."""
    return {"type": "conflict_resolved", "conflict_id": conflict["conflict_id"], "decision": decision,
            "actor": actor, "rule": rule, "rejected": [i for i in conflict["proposals"] if i != decision]}


# -- the refund graph -------------------------------------------------------------------------
def branch_proposals(signals: dict) -> list[tuple[str, str]]:
    """(actor, type) of every proposal the four branches publish for these signals."""
    found = [("policy_check", "evidence_added"), ("policy_check", APPROVAL if signals["policy_ok"] else REJECTION),
             ("risk_review", "risk_assessed"), ("reply_draft", APPROVAL)]
    if signals["payment_id"] is not None:
        found.append(("payment_lookup", "payment_found"))
    return sorted(found)


def branch_records(case: dict, signals: dict) -> list[dict]:
    """The proposals the four branches publish for ``signals``, as the fake tools write them, sorted by event id."""
    return sorted(({"event_id": f"{case['case_id']}:{actor}:{kind}", "type": kind, "expected_revision": case["revision"],
                    "actor": actor, "payload": _payload(kind, signals)} for actor, kind in branch_proposals(signals)),
                  key=lambda proposal: proposal["event_id"])


def model_decide(case: dict, proposals: list[dict]) -> dict:
    """What ``_decide`` leaves for ``proposals``: the case (facts applied, decision, revision + 1), the conflicts
    (kind: the (actor, type) of its proposals), the decision event's type, and the (actor, type) it rests on."""
    current = dict(case)
    conflicts: dict[str, list] = {}
    for proposal in proposals:
        if proposal["type"] in FACT_TYPES:
            verdict = model_classify(case, proposal)  # every fact against the revision the branches read
            if verdict["status"] == "conflict":
                conflicts.setdefault(verdict["reason"], []).append(proposal)
            elif verdict["status"] == "accepted" and proposal["type"] == "payment_found":
                current["payment_id"] = proposal["payload"]["payment_id"]
                current["payment_amount"] = proposal["payload"]["amount"]
            elif verdict["status"] == "accepted" and proposal["type"] == "risk_assessed":
                current["risk_level"] = proposal["payload"]["risk_level"]
    outcomes, deciders = set(), []
    for proposal in proposals:
        if proposal["type"] not in FACT_TYPES:
            verdict = model_classify(current, proposal)
            if verdict["status"] == "conflict":
                conflicts.setdefault(verdict["reason"], []).append(proposal)
            elif verdict["status"] == "accepted":
                outcomes.add("approved" if proposal["type"] == APPROVAL else "rejected")
                deciders.append(proposal)
    if len(outcomes) > 1:  # approval and rejection both accepted: nobody may pick one silently
        conflicts[CONTRADICTORY] = list(deciders)
    decision = outcomes.pop() if len(outcomes) == 1 and not conflicts else None

    def who(found):  # repr: as the check sorts
        return sorted(((p["actor"], p["type"]) for p in found), key=repr)

    return {
        "case": {**current, "revision": case["revision"] + 1, "decision": decision or case["decision"]},
        "conflicts": {kind: who(found) for kind, found in sorted(conflicts.items())},
        "events": {"approved": ["approval_confirmed"], "rejected": ["refund_rejected"]}.get(decision, []),
        "decided_by": who(deciders) if decision else [],  # the proposals the decision event names
    }


def model_refund(case: dict, signals: dict) -> dict:
    """What ``build_refund_graph`` must leave: ``model_decide``'s case, conflicts and events, then the effects.

    ``decided_by``: the (actor, type) of the accepted decision proposals, which the
    decision event lists by event id.
    """
    decided = model_decide(case, branch_records(case, signals))
    approved = decided["case"]["decision"] == "approved"
    return {**decided, "case": {**decided["case"], "effects_applied": approved},
            "effects_done": sorted(f"{case['case_id']}:{name}" for name in EFFECTS) if approved else [],
            "proposals": branch_proposals(signals)}


def _payload(kind: str, signals: dict) -> dict:
    if kind == "payment_found":
        return {"payment_id": signals["payment_id"], "amount": signals["payment_amount"]}
    if kind == "risk_assessed":
        return {"risk_level": signals["risk_level"]}
    return {"amount": signals["requested_amount"]}
