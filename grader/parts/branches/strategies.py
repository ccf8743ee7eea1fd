"""Part D's examples: every Hypothesis strategy its rules draw from, and the hand-picked cases checked first.

A rule's examples are seeded by the name of the test it decorates
(``grader.engine.bank.Key``), not by where a strategy is defined: these are built
once at import and shared by the rules that draw alike. In notebook order.
"""

import itertools

from hypothesis import strategies as st

from grader.parts.branches.model import (
    APPROVAL,
    BRANCHES,
    PROPOSAL_TYPES,
    REJECTION,
    RISK_LEVELS,
    TABLE_KINDS,
    branch_records,
)

case_ids = st.text(alphabet=st.characters(categories=["L", "Nd"]), min_size=1, max_size=6)

# -- evidence: merge_evidence and its laws (notebooks 21, 22) ------------------------------------
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


# -- write_once (notebook 23) ------------------------------------------------------------------
# Falsy values and lists among them: 0, "" and False are set values, not "nothing yet".
once_values = st.one_of(st.text(max_size=5), st.integers(-5, 5), st.sampled_from(["approved", "rejected", 0, "", False]),
                        st.lists(st.integers(0, 3), max_size=3))
# Supersteps of a graph: each a list of the decisions written in parallel.
decision_steps = st.lists(st.lists(st.sampled_from(["approved", "rejected"]), min_size=1, max_size=3), min_size=1, max_size=3)

# -- the stream: optimistic concurrency (notebook 24) ----------------------------------------------
stream_events = st.fixed_dictionaries({"type": st.sampled_from(["evidence_added", "payment_found", "note"]),
                                       "n": st.integers(0, 9)})
event_lists = st.lists(stream_events, min_size=1, max_size=5)
# Each event with the offset of its expected_version from the stream's version (0: an append that fits).
stale_scripts = st.lists(st.tuples(stream_events, st.sampled_from([0, 0, -1, 1, 2])), min_size=1, max_size=6)
writer_counts = st.integers(2, 6)

# -- proposals and the decision table (notebook 25) -------------------------------------------------
UNKNOWN_TYPES = ("refund_requested", "Refund_Approval_Proposed", "")
stale_offsets = st.sampled_from([-2, -1, 1, 3])


@st.composite
def currents(draw):
    """A case as classify_proposal sees it: a payment amount exactly when a payment id is known."""
    payment_id = draw(st.one_of(st.none(), st.sampled_from(["P-1", "P-2"])))
    return {"revision": draw(st.integers(0, 3)), "payment_id": payment_id,
            "payment_amount": None if payment_id is None else draw(st.integers(0, 300)),
            "risk_level": draw(st.sampled_from([None, *RISK_LEVELS])), "effects_applied": draw(st.booleans())}


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
def proposal_lists(draw):
    """Two branches' proposal lists drawn from one pool (an event id is one proposal), repeats and any order."""
    pool = draw(st.lists(proposals(), max_size=5, unique_by=lambda proposal: proposal["event_id"]))
    some = st.lists(st.sampled_from(pool), max_size=4) if pool else st.just([])
    return [draw(some), draw(some)]


@st.composite
def classify_cases(draw, types=PROPOSAL_TYPES):
    current = draw(currents())
    return current, draw(proposals(types, current["revision"]))


# -- conflicts as data (notebook 26) ------------------------------------------------------------------
event_id_sets = st.lists(case_ids, min_size=1, max_size=3, unique=True)  # the proposals a conflict is about
picks_one = st.booleans()  # a decision for one of the proposals, or "reject_all"
actors = st.sampled_from(["alice", "bob"])
resolution_rules = st.sampled_from(["four-eyes", "risk-first"])
resolver_counts = st.integers(2, 5)


@st.composite
def conflict_inputs(draw):
    """open_conflict's arguments: a high-risk case, 1-3 decisions proposed on it, a table kind and an action."""
    case = {"case_id": draw(case_ids), "revision": draw(st.integers(0, 9)), "payment_id": None, "payment_amount": None,
            "risk_level": "high", "effects_applied": False, "decision": None}
    found = [draw(proposals((APPROVAL, REJECTION), case["revision"])) for _ in range(draw(st.integers(1, 3)))]
    unique = list({p["event_id"]: p for p in found}.values())
    return case, unique, draw(st.sampled_from(TABLE_KINDS)), draw(st.sampled_from(["human override or rejection",
                                                                                      "confirm the payment"]))


# -- the refund graph: order independence, effects once (notebook 27) -----------------------------------
signals = st.fixed_dictionaries({
    "payment_id": st.one_of(st.none(), st.sampled_from(["P-1", "P-77", "pay_9"])),
    "payment_amount": st.integers(0, 500),
    "risk_level": st.sampled_from([*RISK_LEVELS, "high", "unknown"]),
    "requested_amount": st.integers(0, 500),
    "policy_ok": st.booleans(),
})
# Signals every branch agrees on: the refund is approved, so its effects run.
approvable_signals = st.fixed_dictionaries({
    "payment_id": st.sampled_from(["P-1", "pay_9"]), "payment_amount": st.integers(100, 500),
    "risk_level": st.sampled_from(["low", "medium"]), "requested_amount": st.integers(0, 100), "policy_ok": st.just(True)})


@st.composite
def refund_cases(draw):
    """A fresh case (nothing known yet) at a random revision, and what the fake tools will find."""
    case = {"case_id": draw(case_ids), "revision": draw(st.integers(0, 9)), "payment_id": None,
            "payment_amount": None, "risk_level": None, "effects_applied": False, "decision": None}
    return case, draw(signals)


@st.composite
def decide_states(draw):
    """The state ``decide`` meets: a fresh case and the proposals the branches published (sorted by event id),
    now and then one of them missing. Only what a graph run can give ``decide``: a stale proposal or a payment
    known before would judge the learner's classify_proposal and write_once here too (their own tasks)."""
    case, found = draw(refund_cases())
    published = [proposal for proposal in branch_records(case, found) if draw(st.integers(0, 7))]
    return {"case": case, "signals": found, "evidence": [], "proposals": published, "conflicts": [], "events": [],
            "effects_done": []}


def fixed_signals(payment_id="P-1", payment_amount=80, risk_level="low", requested_amount=50, policy_ok=True):
    return {"payment_id": payment_id, "payment_amount": payment_amount, "risk_level": risk_level,
            "requested_amount": requested_amount, "policy_ok": policy_ok}


FRESH_CASE = {"case_id": "R1", "revision": 3, "payment_id": None, "payment_amount": None, "risk_level": None,
              "effects_applied": False, "decision": None}
HIGH_RISK = (FRESH_CASE, fixed_signals(risk_level="high"))
# One case per outcome of the table, checked before the random ones: rare rows are never left to chance.
FIXED_REFUNDS = [HIGH_RISK, (FRESH_CASE, fixed_signals()), (FRESH_CASE, fixed_signals(risk_level="unknown")),
                 (FRESH_CASE, fixed_signals(payment_id=None)), (FRESH_CASE, fixed_signals(requested_amount=81)),
                 (FRESH_CASE, fixed_signals(requested_amount=80, risk_level="medium")),
                 (FRESH_CASE, fixed_signals(policy_ok=False))]

# The orders the branches' writes are delivered in: every permutation, and each branch delivered twice
# (at once, and again after the others).
PERMUTATIONS = [list(order) for order in itertools.permutations(BRANCHES)]
DUPLICATED = [[name, name, *[b for b in BRANCHES if b != name]] for name in BRANCHES] + \
             [[*BRANCHES[::-1], name] for name in BRANCHES]
