"""Part D — parallel branches: merge what branches find, decide in one place, act once.

A refund case fans out to four branches (policy check, payment lookup, risk
review, reply draft). Branches publish *evidence* and *proposals*; they never
write the case itself. One node, ``decide``, classifies the proposals against
the case and either decides or records a conflict. Effects (an email, a
transfer) run once per idempotency key, however often a result is delivered.

Notebooks: 20_blind_merge … 27_effects_once. Check with ``check("branches")``.
"""

import copy
import threading
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from agstate.refund_tools import check_policy, draft_reply, lookup_payment, review_risk

__all__ = [
    "EvidenceCollision",
    "merge_evidence",
    "WriteOnceViolation",
    "write_once",
    "RISK_LEVELS",
    "classify_proposal",
    "StaleVersion",
    "CaseStream",
    "open_conflict",
    "resolve_conflict",
    "RefundState",
    "build_refund_graph",
]

RISK_LEVELS = ("low", "medium", "high")
BRANCHES = ("policy_check", "payment_lookup", "risk_review", "reply_draft")
FACT_TYPES = ("evidence_added", "payment_found", "risk_assessed")
# What a person must do about each kind of conflict.
REQUIRED_ACTIONS = {
    "stale_revision": "re-read the case and propose again",
    "payment_id_mismatch": "confirm which payment the refund is for",
    "approval_conflicts_with_high_risk": "human override or rejection",
    "payment_not_confirmed": "confirm the payment before approving",
    "amount_exceeds_payment": "lower the amount or reject",
    "effect_already_applied": "none: the refund was already paid",
    "contradictory_decisions": "choose between approval and rejection",
}


class EvidenceCollision(ValueError):
    """Two pieces of evidence share an ``id`` but differ: nobody may pick one silently."""

    def __init__(self, evidence_id, left, right):
        super().__init__(f"evidence {evidence_id!r} arrived twice with different content: {left!r} vs {right!r}")
        self.evidence_id = evidence_id


### BEGIN SOLUTION branches.merge_evidence
# The learner writes the union: handed out, this helper would be the answer of notebooks 21 and 22.
def _union(left, right, key: str) -> list[dict]:
    """Union of two lists of records by ``key``, sorted by it; same key and different content raises."""
    merged = {}
    for record in [*(left or ()), *(right or ())]:
        found = merged.get(record[key])
        if found is not None and found != record:
            raise EvidenceCollision(record[key], found, record)
        merged[record[key]] = record
    return [copy.deepcopy(merged[k]) for k in sorted(merged)]
### STUB
# # (room for your own helpers of merge_evidence and merge_proposals)
### END SOLUTION


def merge_evidence(left: list[dict], right: list[dict]) -> list[dict]:
    """Union of evidence records by ``id``, sorted by id (a LangGraph reducer).

    The same id with identical content is kept once; the same id with
    different content raises ``EvidenceCollision`` naming the id. ``None``
    counts as no evidence. Returns a new list; never mutates its arguments.
    Laws: associative, commutative, idempotent — so completion order and a
    redelivered branch result cannot change the merged evidence.
    """
    ### BEGIN SOLUTION branches.merge_evidence branches.laws
    return _union(left, right, "id")
    ### END SOLUTION


def merge_proposals(left: list[dict], right: list[dict]) -> list[dict]:
    """Union of proposals by ``event_id``, sorted by it; the laws of ``merge_evidence``."""
    ### BEGIN SOLUTION branches.order_independent
    return _union(left, right, "event_id")
    ### END SOLUTION


class WriteOnceViolation(ValueError):
    """A write-once value was already set to something else."""

    def __init__(self, old, new):
        super().__init__(f"value is write-once: it is {old!r} and cannot become {new!r}")
        self.old = old
        self.new = new


def write_once(old, new):
    """A reducer for a value set at most once: ``None`` takes ``new``; an equal ``new`` keeps ``old``.

    A different ``new`` raises ``WriteOnceViolation(old, new)``. Laws:
    idempotent (a redelivered write changes nothing); commutative where it
    does not raise.
    """
    ### BEGIN SOLUTION branches.write_once
    if old is None:
        return new
    if old == new:
        return old
    raise WriteOnceViolation(old, new)
    ### END SOLUTION


def _verdict(status: str, reason: str | None = None, **extra) -> dict:
    return {"status": status, "reason": reason, **extra}


def classify_proposal(current: dict, proposal: dict) -> dict:
    """Classify one proposal against the case: ``accepted``, ``rejected`` or ``conflict``.

    ``current``: ``revision``, ``payment_id``, ``payment_amount``,
    ``risk_level``, ``effects_applied``. ``proposal``: ``event_id``,
    ``type``, ``expected_revision``, ``actor``, ``payload``. Returns
    ``{"status": ..., "reason": None | str, ...}``; the first matching rule wins:

    1. ``expected_revision != revision`` → conflict ``stale_revision``, with
       ``current_revision``.
    2. ``evidence_added`` → accepted.
    3. ``payment_found``: ``payload["payment_id"]`` differs from a known
       ``payment_id`` → conflict ``payment_id_mismatch``; else accepted.
    4. ``risk_assessed``: ``payload["risk_level"]`` not in RISK_LEVELS →
       rejected ``invalid_risk_level``; else accepted.
    5. ``refund_approval_proposed``: effects applied → conflict
       ``effect_already_applied``; risk ``high`` → conflict
       ``approval_conflicts_with_high_risk`` with ``required_inputs``
       ``["risk_assessment", "human_override_or_rejection"]``; no payment
       id → conflict ``payment_not_confirmed``; ``payload["amount"] >
       payment_amount`` → conflict ``amount_exceeds_payment``; else accepted.
    6. ``refund_rejection_proposed``: effects applied → conflict
       ``effect_already_applied``; else accepted.
    7. anything else → rejected ``unknown_proposal_type``.

    Never mutates its arguments.
    """
    ### BEGIN SOLUTION branches.classify
    kind, payload = proposal["type"], proposal.get("payload") or {}
    if proposal["expected_revision"] != current["revision"]:
        return _verdict("conflict", "stale_revision", current_revision=current["revision"])
    if kind == "evidence_added":
        return _verdict("accepted")
    if kind == "payment_found":
        known = current["payment_id"]
        if known is not None and payload.get("payment_id") != known:
            return _verdict("conflict", "payment_id_mismatch")
        return _verdict("accepted")
    if kind == "risk_assessed":
        if payload.get("risk_level") not in RISK_LEVELS:
            return _verdict("rejected", "invalid_risk_level")
        return _verdict("accepted")
    if kind == "refund_approval_proposed":
        # Order matters: money already sent beats every other objection.
        if current["effects_applied"]:
            return _verdict("conflict", "effect_already_applied")
        if current["risk_level"] == "high":
            return _verdict("conflict", "approval_conflicts_with_high_risk",
                            required_inputs=["risk_assessment", "human_override_or_rejection"])
        if current["payment_id"] is None:
            return _verdict("conflict", "payment_not_confirmed")
        if payload.get("amount") > current["payment_amount"]:
            return _verdict("conflict", "amount_exceeds_payment")
        return _verdict("accepted")
    if kind == "refund_rejection_proposed":
        if current["effects_applied"]:
            return _verdict("conflict", "effect_already_applied")
        return _verdict("accepted")
    return _verdict("rejected", "unknown_proposal_type")
    ### END SOLUTION


class StaleVersion(Exception):
    """An append expected another version of the stream: re-read it and decide again."""

    def __init__(self, expected: int, actual: int):
        super().__init__(f"expected version {expected}, but the stream is at version {actual}: re-read and decide again")
        self.expected = expected
        self.actual = actual


class CaseStream:
    """The append-only events of one case. ``CaseStream(stream_id)``; ``version`` = number of events.

    ``append(event, expected_version)`` stores a copy of ``event`` and returns
    the new version, only if ``expected_version`` is the current version;
    otherwise it raises ``StaleVersion(expected, actual)`` and appends
    nothing. Safe for many threads: of writers racing with the same expected
    version exactly one wins. ``events()`` returns copies, oldest first.

    Its lock is made in ``__init__`` with ``threading.Lock()`` (or
    ``RLock()``) and held while ``append`` compares and appends: the grader
    lends the stream its own locks there and races writers at them.
    """

    def __init__(self, stream_id: str = "case"):
        self.stream_id = stream_id
        ### BEGIN SOLUTION branches.optimistic
        self._events: list[dict] = []
        # Compare-and-append must be one step: a check, then a separate append, lets two writers both pass.
        self._lock = threading.Lock()
        ### STUB
        # self._events: list[dict] = []
        ### END SOLUTION

    @property
    def version(self) -> int:
        ### BEGIN SOLUTION branches.optimistic
        return len(self._events)
        ### END SOLUTION

    def append(self, event: dict, expected_version: int) -> int:
        ### BEGIN SOLUTION branches.optimistic
        with self._lock:
            if expected_version != len(self._events):
                raise StaleVersion(expected_version, len(self._events))
            self._events.append(copy.deepcopy(event))
            return len(self._events)
        ### END SOLUTION

    def events(self) -> list[dict]:
        ### BEGIN SOLUTION branches.optimistic
        with self._lock:
            return copy.deepcopy(self._events)
        ### END SOLUTION


def open_conflict(case: dict, proposals: list[dict], kind: str, required_action: str) -> dict:
    """A conflict record — a value in the state, never an error string.

    ``{"conflict_id", "stream_id": case["case_id"], "status": "open", "kind",
    "current_revision": case["revision"], "proposals": <their event ids,
    sorted>, "required_action", "resolution": None}``. ``conflict_id`` is a
    non-empty string naming the conflict, for instance
    ``f"{case_id}:{kind}:{revision}:{'+'.join(event ids)}"``: the same
    conflict (its proposals in any order) always gets the same id, another
    kind another one.
    """
    ### BEGIN SOLUTION branches.conflicts
    ids = sorted({p["event_id"] for p in proposals})
    return {
        "conflict_id": f"{case['case_id']}:{kind}:{case['revision']}:{'+'.join(ids)}",
        "stream_id": case["case_id"],
        "status": "open",
        "kind": kind,
        "current_revision": case["revision"],
        "proposals": ids,
        "required_action": required_action,
        "resolution": None,
    }
    ### END SOLUTION


def resolve_conflict(stream: CaseStream, conflict: dict, decision: str, actor: str, rule: str) -> dict:
    """Resolve a conflict by appending an event; return the resolved record (a new dict).

    ``decision`` is the event id of the proposal that wins, or any other
    word (``"reject_all"``) for none of them. Appends ``{"type":
    "conflict_resolved", "conflict_id", "decision", "actor", "rule",
    "rejected": <the conflict's other event ids>}`` at the version just read,
    and returns ``{**conflict, "status": "resolved", "resolution": <that
    event>}``. Earlier events and ``conflict`` itself are never changed.

    Resolved once: when the stream already holds a resolution of this
    conflict, return the record with *that* resolution and append nothing.
    On ``StaleVersion`` re-read the stream and decide again — never retry
    the same append blindly: the writer that won may have resolved it.
    """
    ### BEGIN SOLUTION branches.conflicts
    while True:
        version = stream.version
        for event in stream.events()[:version]:
            if event.get("type") == "conflict_resolved" and event.get("conflict_id") == conflict["conflict_id"]:
                return {**copy.deepcopy(conflict), "status": "resolved", "resolution": event}
        event = {"type": "conflict_resolved", "conflict_id": conflict["conflict_id"], "decision": decision,
                 "actor": actor, "rule": rule, "rejected": [p for p in conflict["proposals"] if p != decision]}
        try:
            stream.append(event, version)
        except StaleVersion:
            continue  # someone wrote in between: read again, maybe they resolved it
        return {**copy.deepcopy(conflict), "status": "resolved", "resolution": event}
    ### END SOLUTION


class RefundState(TypedDict, total=False):
    """The refund graph's state: branches add to evidence and proposals; they never write the case (decide and apply_effects do).

    case          dict                                    overwrite: written by decide, then apply_effects
    signals       dict                                    overwrite: the input, what the fake tools find
    evidence      Annotated[list[dict], merge_evidence]   every branch's evidence, merged by id
    proposals     Annotated[list[dict], merge_proposals]  every branch's proposals, merged by event id
    conflicts     list[dict]                              conflict records, written by decide
    events        list[dict]                              decisions taken, written by decide
    effects_done  list[str]                               idempotency keys of the effects run
    """

    ### BEGIN SOLUTION branches.order_independent
    case: dict
    signals: dict
    evidence: Annotated[list[dict], merge_evidence]
    proposals: Annotated[list[dict], merge_proposals]
    conflicts: list[dict]
    events: list[dict]
    effects_done: list[str]
    ### STUB
    # pass
    ### END SOLUTION


class RefundOutput(TypedDict):
    """What ``build_refund_graph``'s ``invoke`` returns."""

    case: dict
    evidence: list[dict]
    proposals: list[dict]
    conflicts: list[dict]
    events: list[dict]
    effects_done: list[str]


def _decide(state: dict) -> dict:
    """The ``decide`` node: the only writer of the decision. Returns ``case``, ``conflicts``, ``events``.

    1. Facts first: each ``evidence_added``, ``payment_found`` and
       ``risk_assessed`` proposal is classified against the case as the
       branches read it; accepted payments set ``payment_id`` (write-once)
       and ``payment_amount``, accepted risk sets ``risk_level``.
    2. Then every decision proposal (approval, rejection) is classified
       against the case *with the facts applied*.
    3. Conflicts become records (``open_conflict``), one per kind, holding
       all the proposals of that kind; approvals and rejections both
       accepted are a ``contradictory_decisions`` conflict.
    4. No conflict and one outcome among the accepted decisions: set
       ``decision`` (``"approved"`` / ``"rejected"``) and append
       ``{"type": "approval_confirmed" | "refund_rejected", "case_id",
       "revision": <new revision>, "proposals": <their event ids>}``.
    5. The revision goes up by one.

    Proposals are iterated in event-id order, so the result never depends
    on which branch finished first.
    """
    ### BEGIN SOLUTION branches.order_independent
    case = dict(state["case"])
    proposals = state.get("proposals") or []  # sorted by event id: the same order whatever arrived first
    found: dict[str, list[dict]] = {}  # conflict kind -> its proposals
    facts = [p for p in proposals if p["type"] in FACT_TYPES]
    for proposal in facts:
        verdict = classify_proposal(state["case"], proposal)  # every fact against the revision the branches read
        if verdict["status"] == "conflict":
            found.setdefault(verdict["reason"], []).append(proposal)
        elif verdict["status"] == "accepted" and proposal["type"] == "payment_found":
            case["payment_id"] = write_once(case["payment_id"], proposal["payload"]["payment_id"])
            case["payment_amount"] = proposal["payload"]["amount"]
        elif verdict["status"] == "accepted" and proposal["type"] == "risk_assessed":
            case["risk_level"] = proposal["payload"]["risk_level"]
    accepted: dict[str, list[dict]] = {}  # decision -> its proposals
    for proposal in proposals:
        if proposal["type"] in FACT_TYPES:
            continue
        verdict = classify_proposal(case, proposal)
        if verdict["status"] == "conflict":
            found.setdefault(verdict["reason"], []).append(proposal)
        elif verdict["status"] == "accepted":
            outcome = "approved" if proposal["type"] == "refund_approval_proposed" else "rejected"
            accepted.setdefault(outcome, []).append(proposal)
    if len(accepted) > 1:
        found["contradictory_decisions"] = [p for group in accepted.values() for p in group]
    conflicts = [open_conflict(state["case"], found[kind], kind, REQUIRED_ACTIONS[kind]) for kind in sorted(found)]
    events = list(state.get("events") or [])
    if len(accepted) == 1 and not conflicts:
        (outcome, chosen), = accepted.items()
        case["decision"] = write_once(case["decision"], outcome)
        events.append({"type": "approval_confirmed" if outcome == "approved" else "refund_rejected",
                       "case_id": case["case_id"], "revision": case["revision"] + 1,
                       "proposals": [p["event_id"] for p in chosen]})
    case["revision"] += 1
    return {"case": case, "conflicts": conflicts, "events": events}
    ### END SOLUTION


def build_refund_graph(effects, checkpointer=None):
    """The refund case: four branches in parallel, then ``decide``, then ``apply_effects``.

    ``effects``: effect name (``"send_email"``, ``"create_transfer"``) →
    ``effect(idempotency_key=..., case=...)``. Input ``{"case": {...},
    "signals": {...}}``. Branch nodes ``policy_check``, ``payment_lookup``,
    ``risk_review``, ``reply_draft`` call the fake tools of
    ``agstate.refund_tools`` at the case's revision and publish
    ``evidence`` and ``proposals``. ``decide`` owns the decision (see
    ``_decide``). ``apply_effects`` runs every effect once per idempotency
    key ``f"{case_id}:{effect_name}"`` for each ``approval_confirmed`` in
    ``events``, records the keys in ``effects_done``, and sets
    ``effects_applied``. Output keys: ``case``, ``evidence``,
    ``proposals``, ``conflicts``, ``events``, ``effects_done`` — the same
    whatever order the branch results arrive in, and when one arrives twice.
    """
    ### BEGIN SOLUTION branches.order_independent branches.effects_once
    tools = {"policy_check": check_policy, "payment_lookup": lookup_payment,
             "risk_review": review_risk, "reply_draft": draft_reply}

    def branch(tool):
        return lambda state: tool(state["case"], state["signals"])

    def apply_effects(state: RefundState) -> dict:
        case = dict(state["case"])
        done = list(state.get("effects_done") or [])
        for event in state.get("events") or []:
            if event["type"] != "approval_confirmed":
                continue
            for name in sorted(effects):
                key = f"{case['case_id']}:{name}"
                if key in done:  # a redelivered confirmation must not send a second email
                    continue
                effects[name](idempotency_key=key, case=copy.deepcopy(case))
                done.append(key)
        case["effects_applied"] = case["effects_applied"] or bool(done)
        return {"case": case, "effects_done": done}

    builder = StateGraph(RefundState, output_schema=RefundOutput)
    for name in BRANCHES:
        builder.add_node(name, branch(tools[name]))
        builder.add_edge(START, name)
    builder.add_node("decide", _decide)
    builder.add_node("apply_effects", apply_effects)
    builder.add_edge(list(BRANCHES), "decide")
    builder.add_edge("decide", "apply_effects")
    builder.add_edge("apply_effects", END)
    return builder.compile(checkpointer=checkpointer)
    ### END SOLUTION
