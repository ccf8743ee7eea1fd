"""Part F — pauses and upgrades: a run that stops for a person, and starts again.

A node that calls ``interrupt()`` runs again from its first line when the
person answers: whatever it did before the pause, it does again. A person's
edit with ``update_state`` goes through the key's reducer. Several pauses in
one node are answered by position. And a thread paused under one release of
the code may be resumed by the next, whose state has other keys.

Rules every function here follows:
- a side effect is called with an idempotency key derived from the state
  (never a counter, a clock, a random number or the thread), so a re-run is
  recognized;
- a pause is ``interrupt(value)``, imported by that name from
  ``langgraph.types`` at the top of the module, with plain data as its value;
- what a node needs after a pause is in the thread's state, never in the
  process's memory: the answer may come to another process;
- inputs are never mutated.

Notebooks: 33_approve_once … 37_old_threads_resume. Check with ``check("pauses")``.
"""

import copy
import operator
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from langgraph.types import Overwrite, interrupt
from typing_extensions import TypedDict

from agstate.approvals import FORM, VERSIONS, Inbox, Payments, Stock, merge_tags

__all__ = [
    "ApprovalState",
    "build_approval_graph",
    "ReviewState",
    "edit_update",
    "IntakeState",
    "build_intake_graph",
    "CURRENT_VERSION",
    "upgrade",
    "migrate",
    "OrderState",
    "upgrade_update",
    "build_order_graph",
]


class ApprovalState(TypedDict, total=False):
    request: dict  # {"id": str, "payee": str, "amount": int}
    decision: str  # "approved" | "denied"
    receipt: str | None


def build_approval_graph(inbox: Inbox, payments: Payments, checkpointer=None):
    """A graph over ``ApprovalState`` that asks a person to approve ``request``, then pays it or not.

    ``invoke({"request": r}, config)`` sends ``r`` to the person with
    ``inbox.send`` and pauses with ``r`` as the interrupt's value. The person
    answers with ``Command(resume=True)`` (approve) or ``Command(resume=False)``
    (deny). An approved request is paid with ``payments.pay`` (its payee and
    amount) and ``receipt`` is the receipt; a denied one is never paid and
    ``receipt`` is ``None``. ``decision`` is ``"approved"`` or ``"denied"``.
    The person is asked once and the request paid at most once per request,
    whatever re-runs a pause or a crash causes: the node that pauses runs
    again on resume, and a crashed step runs again on ``invoke(None, config)``.
    """
    raise NotImplementedError('pauses.approval: build_approval_graph() is not written yet; complete it in agstate/pauses.py (notebook 33_approve_once.ipynb)')


class ReviewState(TypedDict, total=False):
    draft: str  # plain: the last write
    notes: Annotated[list[str], operator.add]  # appended
    tags: Annotated[list[str], merge_tags]  # union, first-seen order


def edit_update(key: str, current, edit: tuple) -> dict:
    """The update for ``graph.update_state(config, update)`` that makes ``key`` of a ``ReviewState`` hold what a person meant.

    ``current`` is the key's value now. ``edit`` is ``("replace", value)``,
    ``("correct", index, value)`` (a list key: the item at ``index`` becomes
    ``value``) or ``("remove", index)`` (a list key: the item at ``index`` is
    removed); a valid index is an ``int`` (a ``bool`` is not one: refuse
    ``True``) with ``0 <= index < len(current)``. The update names
    ``key`` only: the value itself for a key without a reducer, ``Overwrite``
    of it for a key with one (a plain value would go through the reducer).
    ``current`` is not modified. Raises ``ValueError`` naming the key for an
    edit that does not fit: an unknown key or kind, a list edit on ``draft``,
    an invalid index, a value of the wrong type (a tuple where the key holds
    a list), a part missing or too many.
    """
    raise NotImplementedError('pauses.edits: edit_update() is not written yet; complete it in agstate/pauses.py (notebook 34_human_edits.ipynb)')


class IntakeState(TypedDict, total=False):
    asked: list[str]  # the questions this run asks, decided once
    answers: dict[str, str]  # question id -> the person's answer; no reducer: a write replaces the whole dict


def build_intake_graph(stock: Stock, checkpointer=None):
    """A graph over ``IntakeState`` that asks, one pause each, the questions of ``FORM`` that ``stock.needs``.

    ``invoke({}, config)`` decides which questions to ask once, before the
    first pause, and keeps them in ``asked`` (``stock`` may answer otherwise
    later: the run already started does not change). Each pause's interrupt
    value is ``{"question": <question id>}``, in ``FORM``'s order, and the
    person's answer (the resume value) lands in ``answers`` under that question.
    A question is asked until answered, then never again. The run completes
    when every question in ``asked`` is answered; with none needed, at once.
    """
    raise NotImplementedError('pauses.questions: build_intake_graph() is not written yet; complete it in agstate/pauses.py (notebook 35_questions_by_position.ipynb)')


CURRENT_VERSION = 3
_NAMES = {key for keys in VERSIONS.values() for key in keys}  # every key any release has


def upgrade(values: dict, version: int) -> dict:
    """The state of release ``version + 1`` for ``values`` of release ``version`` (1 or 2), its ``version`` set.

    1 -> 2: ``items`` is renamed ``lines``. 2 -> 3: each line ``s`` becomes
    ``{"text": s, "qty": 1}``, ``currency`` is ``"EUR"``, and every key no
    release has moves to ``archive`` under its name. ``total`` is kept as it
    was; a key no release has is carried unchanged to release 2. Pure: the
    arguments are not modified, and the same arguments give equal results.
    Raises ``ValueError`` for a ``version`` other than 1 and 2.
    """
    raise NotImplementedError('pauses.migrate: upgrade() is not written yet; complete it in agstate/pauses.py (notebook 36_migrations.ipynb)')


def migrate(values: dict, version: int) -> dict:
    """``upgrade`` applied release by release from ``version`` to ``CURRENT_VERSION``; on a current state, equal to it.

    Pure, as ``upgrade``. Raises ``ValueError`` for a ``version`` other than 1, 2 and 3.
    """
    raise NotImplementedError('pauses.migrate: migrate() is not written yet; complete it in agstate/pauses.py (notebook 36_migrations.ipynb)')


class OrderState(TypedDict, total=False):
    version: int
    lines: Annotated[list[dict], operator.add]  # {"text": str, "qty": int}
    total: int
    currency: str
    archive: dict


def upgrade_update(saved: dict, version: int) -> dict:
    """The update that makes a thread paused under release ``version`` hold its migrated state, for release 3's graph.

    ``saved`` is the thread's values under its release; ``version`` is 1, 2
    or 3 (a thread already on release 3 comes through unchanged: do not
    refuse 3). The update sets every key of release 3: ``Overwrite`` for a
    key with a reducer, the value for the others; applying it twice gives
    what once gives.
    """
    raise NotImplementedError('pauses.upgrade: upgrade_update() is not written yet; complete it in agstate/pauses.py (notebook 37_old_threads_resume.ipynb)')


def build_order_graph(checkpointer=None):
    """Release 3 of the order graph, over ``OrderState``: ``wait`` pauses with ``"confirm"`` (any answer confirms),
    ``add`` appends the line ``{"text": "x", "qty": 1}``, ``total`` sets ``total`` to the sum of the lines' ``qty``."""
    raise NotImplementedError('pauses.upgrade: build_order_graph() is not written yet; complete it in agstate/pauses.py (notebook 37_old_threads_resume.ipynb)')
