"""Part D's model: the decision table, the evidence merge and the refund graph's outcome, in plain Python.

The rules in ``grader.parts.branches.rules`` compare the learner's answers with
these. The model of the refund graph follows the provided branch tools
(``agstate/refund_tools.py``): which proposals each branch publishes for
given signals.
"""

from hypothesis import strategies as st

RISK_LEVELS = ("low", "medium", "high")
BRANCHES = ("policy_check", "payment_lookup", "risk_review", "reply_draft")
EFFECTS = ("create_transfer", "send_email")
FACT_TYPES = ("evidence_added", "payment_found", "risk_assessed")
APPROVAL, REJECTION = "refund_approval_proposed", "refund_rejection_proposed"
HIGH_RISK_INPUTS = ["risk_assessment", "human_override_or_rejection"]
# The conflict kinds of the decision table (a graph may add its own, e.g. for contradictory decisions).
TABLE_KINDS = ("stale_revision", "payment_id_mismatch", "effect_already_applied", "approval_conflicts_with_high_risk",
               "payment_not_confirmed", "amount_exceeds_payment")


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


def first_collision(*lists, key: str = "id"):
    merged = {}
    for records in lists:
        for record in records:
            if record[key] in merged and merged[record[key]] != record:
                return record[key]
            merged[record[key]] = record
    return None


# -- the refund graph -------------------------------------------------------------------------
def branch_proposals(signals: dict) -> list[tuple[str, str]]:
    """(actor, type) of every proposal the four branches publish for these signals."""
    found = [("policy_check", "evidence_added"), ("policy_check", APPROVAL if signals["policy_ok"] else REJECTION),
             ("risk_review", "risk_assessed"), ("reply_draft", APPROVAL)]
    if signals["payment_id"] is not None:
        found.append(("payment_lookup", "payment_found"))
    return sorted(found)


def model_refund(case: dict, signals: dict) -> dict:
    """What ``build_refund_graph`` must leave: the case, conflict kinds and who caused them, events, effects."""
    current = dict(case)
    proposals = [{"actor": actor, "type": kind, "expected_revision": case["revision"],
                  "payload": _payload(kind, signals)} for actor, kind in branch_proposals(signals)]
    conflicts: dict[str, list] = {}
    for proposal in proposals:
        if proposal["type"] in FACT_TYPES:
            verdict = model_classify(case, proposal)
            if verdict["status"] == "conflict":
                conflicts.setdefault(verdict["reason"], []).append((proposal["actor"], proposal["type"]))
            elif verdict["status"] == "accepted" and proposal["type"] == "payment_found":
                current["payment_id"], current["payment_amount"] = signals["payment_id"], signals["payment_amount"]
            elif verdict["status"] == "accepted" and proposal["type"] == "risk_assessed":
                current["risk_level"] = signals["risk_level"]
    outcomes = set()
    for proposal in proposals:
        if proposal["type"] not in FACT_TYPES:
            verdict = model_classify(current, proposal)
            if verdict["status"] == "conflict":
                conflicts.setdefault(verdict["reason"], []).append((proposal["actor"], proposal["type"]))
            elif verdict["status"] == "accepted":
                outcomes.add("approved" if proposal["type"] == APPROVAL else "rejected")
    decision = outcomes.pop() if len(outcomes) == 1 and not conflicts else None
    approved = decision == "approved"
    return {
        "case": {**current, "revision": case["revision"] + 1, "decision": decision, "effects_applied": approved},
        "conflicts": {kind: sorted(who) for kind, who in sorted(conflicts.items())},
        "events": {"approved": ["approval_confirmed"], "rejected": ["refund_rejected"]}.get(decision, []),
        "effects_done": sorted(f"{case['case_id']}:{name}" for name in EFFECTS) if approved else [],
        "proposals": branch_proposals(signals),
    }


def _payload(kind: str, signals: dict) -> dict:
    if kind == "payment_found":
        return {"payment_id": signals["payment_id"], "amount": signals["payment_amount"]}
    if kind == "risk_assessed":
        return {"risk_level": signals["risk_level"]}
    return {"amount": signals["requested_amount"]}


# -- strategies ---------------------------------------------------------------------------------
case_ids = st.text(alphabet=st.characters(categories=["L", "Nd"]), min_size=1, max_size=6)
signals = st.fixed_dictionaries({
    "payment_id": st.one_of(st.none(), st.sampled_from(["P-1", "P-77", "pay_9"])),
    "payment_amount": st.integers(0, 500),
    "risk_level": st.sampled_from([*RISK_LEVELS, "high", "unknown"]),
    "requested_amount": st.integers(0, 500),
    "policy_ok": st.booleans(),
})


@st.composite
def refund_cases(draw):
    """A fresh case (nothing known yet) at a random revision, and what the fake tools will find."""
    case = {"case_id": draw(case_ids), "revision": draw(st.integers(0, 9)), "payment_id": None,
            "payment_amount": None, "risk_level": None, "effects_applied": False, "decision": None}
    return case, draw(signals)


@st.composite
def currents(draw):
    """A case as classify_proposal sees it: a payment amount exactly when a payment id is known."""
    payment_id = draw(st.one_of(st.none(), st.sampled_from(["P-1", "P-2"])))
    return {"revision": draw(st.integers(0, 3)), "payment_id": payment_id,
            "payment_amount": None if payment_id is None else draw(st.integers(0, 300)),
            "risk_level": draw(st.sampled_from([None, *RISK_LEVELS])), "effects_applied": draw(st.booleans())}


PROPOSAL_TYPES = ("evidence_added", "payment_found", "risk_assessed", APPROVAL, REJECTION)
UNKNOWN_TYPES = ("refund_requested", "Refund_Approval_Proposed", "")


@st.composite
def proposals(draw, types=PROPOSAL_TYPES, revision=None):
    """A proposal of one of ``types``; its expected revision is mostly the case's (``revision``)."""
    kind = draw(st.sampled_from(types))
    payload = {"payment_found": lambda: {"payment_id": draw(st.sampled_from(["P-1", "P-2", "P-3"])),
                                         "amount": draw(st.integers(0, 300))},
               "risk_assessed": lambda: {"risk_level": draw(st.sampled_from([*RISK_LEVELS, "critical", "", "HIGH"]))},
               APPROVAL: lambda: {"amount": draw(st.integers(0, 300))},
               REJECTION: lambda: {"reason": "policy"}}.get(kind, lambda: {"note": draw(st.text(max_size=4))})()
    fresh = revision if revision is not None and draw(st.integers(0, 4)) else draw(st.integers(0, 3))
    return {"event_id": draw(case_ids), "type": kind, "expected_revision": fresh,
            "actor": draw(st.sampled_from(list(BRANCHES))), "payload": payload}


@st.composite
def classify_cases(draw, types=PROPOSAL_TYPES):
    current = draw(currents())
    return current, draw(proposals(types, current["revision"]))


# Evidence drawn from one "world" (each id has one content) never collides; a second world may.
_evidence_ids = st.sampled_from(["e1", "e2", "e3", "e10", "", "é"])


@st.composite
def evidence_world(draw):
    ids = draw(st.lists(_evidence_ids, min_size=1, max_size=6, unique=True))
    return {i: {"id": i, "source": draw(st.sampled_from(list(BRANCHES))), "value": draw(st.integers(-3, 3))} for i in ids}


@st.composite
def consistent_lists(draw, count: int):
    """``count`` evidence lists that agree on every id (repeats inside a list included)."""
    world = draw(evidence_world())
    return [[dict(world[i]) for i in draw(st.lists(st.sampled_from(sorted(world)), max_size=6))] for _ in range(count)]


@st.composite
def colliding_pair(draw):
    """Two evidence lists holding the same id with different content, and that id."""
    left, right = draw(consistent_lists(2))
    shared = draw(_evidence_ids)
    left.append({"id": shared, "source": "policy_check", "value": 1})
    right.insert(draw(st.integers(0, len(right))), {"id": shared, "source": "risk_review", "value": 2})
    return left, right, shared


def table_rows() -> list[tuple[dict, dict]]:
    """One hand-picked (case, proposal) per row and sub-row of the decision table, fresh unless stated."""
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
