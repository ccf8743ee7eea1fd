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
    ### BEGIN SOLUTION pauses.approval
    def ask(state: ApprovalState) -> dict:
        request = state["request"]
        inbox.send(f"ask:{request['id']}", request)  # keyed: a re-run of this step sends nothing more
        return {}

    def wait(state: ApprovalState) -> dict:
        # Nothing before the interrupt: this node runs again from here when the person answers.
        approved = interrupt(state["request"])
        return {"decision": "approved" if approved is True else "denied"}

    def pay(state: ApprovalState) -> dict:
        request = state["request"]
        receipt = payments.pay(f"pay:{request['id']}", request["payee"], request["amount"])
        return {"receipt": receipt}

    def deny(state: ApprovalState) -> dict:
        return {"receipt": None}

    graph = StateGraph(ApprovalState)
    for name, node in (("ask", ask), ("wait", wait), ("pay", pay), ("deny", deny)):
        graph.add_node(name, node)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", "wait")
    graph.add_conditional_edges("wait", lambda state: "pay" if state["decision"] == "approved" else "deny", ["pay", "deny"])
    graph.add_edge("pay", END)
    graph.add_edge("deny", END)
    return graph.compile(checkpointer=checkpointer)
    ### END SOLUTION


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
    ### BEGIN SOLUTION pauses.edits
    if key not in ReviewState.__annotations__:
        raise ValueError(f"{key!r} is not a key of ReviewState")
    if not isinstance(edit, (tuple, list)) or not edit:
        raise ValueError(f"{key!r}: an edit is a tuple such as ('replace', value), not {edit!r}")
    kind, args = edit[0], list(edit[1:])
    if kind == "replace" and len(args) == 1:
        value = args[0]
        fits = isinstance(value, str) if key == "draft" else (isinstance(value, list) and all(isinstance(v, str) for v in value))
        if not fits:
            raise ValueError(f"{key!r} cannot hold {value!r}")
        meant = list(value) if key != "draft" else value
    elif kind in ("correct", "remove") and key != "draft":
        index = args[0] if args else None
        if type(index) is not int or not 0 <= index < len(current):
            raise ValueError(f"{key!r}: {index!r} is not an index of its {len(current)} items")
        meant = list(current)
        if kind == "remove" and len(args) == 1:
            del meant[index]
        elif kind == "correct" and len(args) == 2 and isinstance(args[1], str):
            meant[index] = args[1]
        else:
            raise ValueError(f"{key!r}: {edit!r} is not a valid {kind!r} edit")
    else:
        raise ValueError(f"{key!r}: {edit!r} is not an edit this key takes")
    has_reducer = key in ("notes", "tags")
    return {key: Overwrite(meant) if has_reducer else meant}
    ### END SOLUTION


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
    ### BEGIN SOLUTION pauses.questions
    def plan(state: IntakeState) -> dict:
        return {"asked": [question for question in FORM if stock.needs(question)], "answers": {}}

    def ask(state: IntakeState) -> dict:
        # One pause per run of this node: a re-run meets the same question, so its answer cannot shift.
        question = next(q for q in state["asked"] if q not in state["answers"])
        answer = interrupt({"question": question})
        return {"answers": {**state["answers"], question: answer}}

    def more(state: IntakeState) -> str:
        return "ask" if any(q not in state["answers"] for q in state["asked"]) else END

    graph = StateGraph(IntakeState)
    graph.add_node("plan", plan)
    graph.add_node("ask", ask)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", more, ["ask", END])
    graph.add_conditional_edges("ask", more, ["ask", END])
    return graph.compile(checkpointer=checkpointer)
    ### END SOLUTION


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
    ### BEGIN SOLUTION pauses.migrate
    if type(version) is not int or not 1 <= version < CURRENT_VERSION:
        raise ValueError(f"upgrade goes from release 1 or 2, not {version!r}")
    values = copy.deepcopy(values)
    if version == 1:
        upgraded = {("lines" if key == "items" else key): value for key, value in values.items()}
        return {**upgraded, "version": 2}
    upgraded = {key: value for key, value in values.items() if key in _NAMES}
    if "lines" in upgraded:
        upgraded["lines"] = [{"text": line, "qty": 1} for line in upgraded["lines"]]
    archive = {key: value for key, value in values.items() if key not in _NAMES}
    return {**upgraded, "version": 3, "currency": "EUR", "archive": archive}
    ### END SOLUTION


def migrate(values: dict, version: int) -> dict:
    """``upgrade`` applied release by release from ``version`` to ``CURRENT_VERSION``; on a current state, equal to it.

    Pure, as ``upgrade``. Raises ``ValueError`` for a ``version`` other than 1, 2 and 3.
    """
    ### BEGIN SOLUTION pauses.migrate
    if type(version) is not int or not 1 <= version <= CURRENT_VERSION:
        raise ValueError(f"migrate goes from releases 1 to {CURRENT_VERSION}, not {version!r}")
    values = copy.deepcopy(values)
    for release in range(version, CURRENT_VERSION):
        values = upgrade(values, release)
    return values
    ### END SOLUTION


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
    ### BEGIN SOLUTION pauses.upgrade
    migrated = migrate(saved, version)
    return {key: Overwrite(migrated.get(key, [])) if rule == "append" else migrated.get(key)
            for key, rule in VERSIONS[CURRENT_VERSION].items()}
    ### END SOLUTION


def build_order_graph(checkpointer=None):
    """Release 3 of the order graph, over ``OrderState``: ``wait`` pauses with ``"confirm"`` (any answer confirms),
    ``add`` appends the line ``{"text": "x", "qty": 1}``, ``total`` sets ``total`` to the sum of the lines' ``qty``."""
    ### BEGIN SOLUTION pauses.upgrade
    def wait(state: OrderState) -> dict:
        interrupt("confirm")
        return {}

    graph = StateGraph(OrderState)
    graph.add_node("wait", wait)
    graph.add_node("add", lambda state: {"lines": [{"text": "x", "qty": 1}]})
    graph.add_node("total", lambda state: {"total": sum(line["qty"] for line in state["lines"])})
    graph.add_edge(START, "wait")
    graph.add_edge("wait", "add")
    graph.add_edge("add", "total")
    graph.add_edge("total", END)
    return graph.compile(checkpointer=checkpointer)
    ### END SOLUTION
