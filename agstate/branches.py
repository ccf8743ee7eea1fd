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


# (room for your own helpers of merge_evidence and merge_proposals)


def merge_evidence(left: list[dict], right: list[dict]) -> list[dict]:
    """Union of evidence records by ``id``, sorted by id (a LangGraph reducer).

    The same id with identical content is kept once; the same id with
    different content raises ``EvidenceCollision`` naming the id. ``None``
    counts as no evidence. Returns a new list; never mutates its arguments.
    Laws: associative, commutative, idempotent — so completion order and a
    redelivered branch result cannot change the merged evidence.
    """
    raise NotImplementedError('branches.merge_evidence: merge_evidence() is not written yet; complete it in agstate/branches.py (notebook 21_merge_evidence.ipynb)')


def merge_proposals(left: list[dict], right: list[dict]) -> list[dict]:
    """Union of proposals by ``event_id``, sorted by it; the laws of ``merge_evidence``."""
    raise NotImplementedError('branches.order_independent: merge_proposals() is not written yet; complete it in agstate/branches.py (notebook 27_effects_once.ipynb)')


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
    raise NotImplementedError('branches.write_once: write_once() is not written yet; complete it in agstate/branches.py (notebook 23_write_once.ipynb)')


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
    raise NotImplementedError('branches.classify: classify_proposal() is not written yet; complete it in agstate/branches.py (notebook 25_classify_proposals.ipynb)')


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
        self._events: list[dict] = []

    @property
    def version(self) -> int:
        raise NotImplementedError('branches.optimistic: version() is not written yet; complete it in agstate/branches.py (notebook 24_optimistic_concurrency.ipynb)')

    def append(self, event: dict, expected_version: int) -> int:
        raise NotImplementedError('branches.optimistic: append() is not written yet; complete it in agstate/branches.py (notebook 24_optimistic_concurrency.ipynb)')

    def events(self) -> list[dict]:
        raise NotImplementedError('branches.optimistic: events() is not written yet; complete it in agstate/branches.py (notebook 24_optimistic_concurrency.ipynb)')


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
    raise NotImplementedError('branches.conflicts: open_conflict() is not written yet; complete it in agstate/branches.py (notebook 26_conflicts_as_data.ipynb)')


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
    raise NotImplementedError('branches.conflicts: resolve_conflict() is not written yet; complete it in agstate/branches.py (notebook 26_conflicts_as_data.ipynb)')


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

    pass


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
    raise NotImplementedError('branches.order_independent: _decide() is not written yet; complete it in agstate/branches.py (notebook 27_effects_once.ipynb)')


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
    raise NotImplementedError('branches.order_independent: build_refund_graph() is not written yet; complete it in agstate/branches.py (notebook 27_effects_once.ipynb)')
