"""Part F — pauses and upgrades (an independent solution from the contract page).

Every pause goes through ``interrupt``, looked up by name in this module at
call time, so that a replacement lent in its place is the one called.
"""
from __future__ import annotations

import copy
import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Overwrite, interrupt

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
    "upgrade_update",
    "OrderState",
    "build_order_graph",
]


# ---------------------------------------------------------------------------
# pauses.approval
# ---------------------------------------------------------------------------


class ApprovalState(TypedDict, total=False):
    request: dict  # {"id": str, "payee": str, "amount": int}
    decision: str  # "approved" | "denied"
    receipt: str | None


def _effect_key(request: dict, effect: str) -> str:
    """The idempotency key of one effect for one request: derived from the
    state alone, so a re-run of the same step derives the same key."""
    return f"approval/{request['id']}/{effect}"


def build_approval_graph(inbox: Inbox, payments: Payments, checkpointer=None):
    """notify (send, once) -> decide (the only interrupt) -> pay (approved only).

    Each side effect sits alone in its own node, after the pause or before
    it, never in the node that pauses: a node re-run on resume or after a
    crash repeats nothing but its own single, key-guarded call.
    """

    def notify(state: ApprovalState) -> dict:
        request = state["request"]
        inbox.send(_effect_key(request, "ask"), request)
        return {"receipt": None}

    def decide(state: ApprovalState) -> dict:
        answer = interrupt(state["request"])
        if answer is True:
            return {"decision": "approved"}
        return {"decision": "denied", "receipt": None}

    def pay(state: ApprovalState) -> dict:
        request = state["request"]
        receipt = payments.pay(
            _effect_key(request, "pay"), request["payee"], request["amount"]
        )
        return {"receipt": receipt}

    def after_decide(state: ApprovalState) -> str:
        return "pay" if state.get("decision") == "approved" else END

    builder = StateGraph(ApprovalState)
    builder.add_node("notify", notify)
    builder.add_node("decide", decide)
    builder.add_node("pay", pay)
    builder.add_edge(START, "notify")
    builder.add_edge("notify", "decide")
    builder.add_conditional_edges("decide", after_decide, ["pay", END])
    builder.add_edge("pay", END)
    return builder.compile(checkpointer=checkpointer)


# ---------------------------------------------------------------------------
# pauses.edits
# ---------------------------------------------------------------------------


class ReviewState(TypedDict, total=False):
    draft: str  # plain: the last write
    notes: Annotated[list[str], operator.add]  # appended
    tags: Annotated[list[str], merge_tags]  # provided reducer: union, first-seen order


_PLAIN_KEYS = ("draft",)
_LIST_KEYS = ("notes", "tags")


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def edit_update(key: str, current, edit: tuple) -> dict:
    """The update that, applied with ``update_state`` (no ``as_node``), makes
    ``key`` hold what the person meant. ``current`` is never modified."""
    if key not in _PLAIN_KEYS and key not in _LIST_KEYS:
        raise ValueError(f"unknown key {key!r}: edits apply to draft, notes or tags")
    if not isinstance(edit, tuple) or not edit:
        raise ValueError(f"edit of {key!r} must be a non-empty tuple, got {edit!r}")
    kind = edit[0]

    if kind == "replace":
        if len(edit) != 2:
            raise ValueError(f"('replace', value) on {key!r} takes one value, got {edit!r}")
        value = edit[1]
        if key in _PLAIN_KEYS:
            if not isinstance(value, str):
                raise ValueError(f"{key!r} holds a str, got {type(value).__name__}")
            return {key: value}
        if not _is_str_list(value):
            raise ValueError(f"{key!r} holds a list[str], got {value!r}")
        return {key: Overwrite(list(value))}

    if kind not in ("correct", "remove"):
        raise ValueError(f"unknown kind of edit {kind!r} on {key!r}")
    if key in _PLAIN_KEYS:
        raise ValueError(f"{kind!r} applies to a list key, not {key!r}")
    if not _is_str_list(current):
        raise ValueError(f"current value of {key!r} is not a list[str]: {current!r}")

    if kind == "correct":
        if len(edit) != 3:
            raise ValueError(f"('correct', index, value) on {key!r}, got {edit!r}")
        index, value = edit[1], edit[2]
        if not _is_index(index) or not 0 <= index < len(current):
            raise ValueError(f"invalid index {index!r} for {key!r} of length {len(current)}")
        if not isinstance(value, str):
            raise ValueError(f"an item of {key!r} is a str, got {type(value).__name__}")
        new = list(current)
        new[index] = value
        return {key: Overwrite(new)}

    # kind == "remove"
    if len(edit) != 2:
        raise ValueError(f"('remove', index) on {key!r}, got {edit!r}")
    index = edit[1]
    if not _is_index(index) or not 0 <= index < len(current):
        raise ValueError(f"invalid index {index!r} for {key!r} of length {len(current)}")
    new = list(current)
    del new[index]
    return {key: Overwrite(new)}


# ---------------------------------------------------------------------------
# pauses.questions
# ---------------------------------------------------------------------------


class IntakeState(TypedDict, total=False):
    asked: list[str]  # the questions this run asks, decided once
    answers: dict[str, str]  # question id -> the person's answer


def _pending(state: IntakeState) -> list[str]:
    answers = state.get("answers") or {}
    return [q for q in state.get("asked") or [] if q not in answers]


def build_intake_graph(stock: Stock, checkpointer=None):
    """plan (decides ``asked`` once, no pause) -> ask (one interrupt per run
    of the node, the first unanswered question) -> ask ... -> END."""

    def plan(state: IntakeState) -> dict:
        asked = [q for q in FORM if stock.needs(q)]
        return {"asked": asked, "answers": {}}

    def ask(state: IntakeState) -> dict:
        question = _pending(state)[0]
        answer = interrupt({"question": question})
        answers = dict(state.get("answers") or {})
        answers[question] = answer
        return {"answers": answers}

    def route(state: IntakeState) -> str:
        return "ask" if _pending(state) else END

    builder = StateGraph(IntakeState)
    builder.add_node("plan", plan)
    builder.add_node("ask", ask)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", route, ["ask", END])
    builder.add_conditional_edges("ask", route, ["ask", END])
    return builder.compile(checkpointer=checkpointer)


# ---------------------------------------------------------------------------
# pauses.migrate
# ---------------------------------------------------------------------------

CURRENT_VERSION = 3

_ALL_NAMES = frozenset(k for keys in VERSIONS.values() for k in keys)


def _check_release_values(values: dict, version: int) -> None:
    if not isinstance(values, dict):
        raise ValueError(f"values must be a dict, got {type(values).__name__}")
    if "version" in values and values["version"] != version:
        raise ValueError(
            f"values['version'] is {values['version']!r}, not release {version}"
        )
    foreign = sorted(k for k in values if k in _ALL_NAMES and k not in VERSIONS[version])
    if foreign:
        raise ValueError(
            f"a release-{version} state cannot hold another release's keys {foreign}"
        )


def upgrade(values: dict, version: int) -> dict:
    """The release ``version + 1`` state of a release ``version`` state."""
    if not _is_index(version) or not 1 <= version <= CURRENT_VERSION - 1:
        raise ValueError(f"upgrade takes a release in 1..{CURRENT_VERSION - 1}, got {version!r}")
    _check_release_values(values, version)
    known = VERSIONS[version]
    extras = {k: copy.deepcopy(v) for k, v in values.items() if k not in known}

    if version == 1:
        out: dict = {"version": 2, "lines": list(copy.deepcopy(values.get("items") or []))}
        if "total" in values:
            out["total"] = copy.deepcopy(values["total"])
        out.update(extras)  # carried unchanged to release 2
        return out

    # version == 2
    lines = []
    for line in values.get("lines") or []:
        if not isinstance(line, str):
            raise ValueError(f"a release-2 line is a str, got {line!r}")
        lines.append({"text": line, "qty": 1})
    out = {"version": 3, "lines": lines}
    if "total" in values:
        out["total"] = copy.deepcopy(values["total"])
    out["currency"] = "EUR"
    out["archive"] = extras  # what release 3 has no key for, by its old key
    return out


def migrate(values: dict, version: int) -> dict:
    """Any earlier release's state, upgraded release by release to CURRENT_VERSION."""
    if not _is_index(version) or not 1 <= version <= CURRENT_VERSION:
        raise ValueError(f"migrate takes a release in 1..{CURRENT_VERSION}, got {version!r}")
    if version == CURRENT_VERSION:
        _check_release_values(values, version)
        return copy.deepcopy(values)
    out = values
    for release in range(version, CURRENT_VERSION):
        out = upgrade(out, release)
    return out


# ---------------------------------------------------------------------------
# pauses.upgrade
# ---------------------------------------------------------------------------


class OrderState(TypedDict, total=False):
    version: int
    lines: Annotated[list[dict], operator.add]  # {"text": str, "qty": int}
    total: int
    currency: str
    archive: dict


def upgrade_update(saved: dict, version: int) -> dict:
    """The update that makes a thread paused under release ``version`` hold
    its migrated state: every release-3 key, ``Overwrite`` on the reducer
    key (``lines``), the value itself on the others — idempotent."""
    state = migrate(saved, version)
    lines = list(state.get("lines") or [])
    total = state["total"] if "total" in state else sum(line["qty"] for line in lines)
    return {
        "version": CURRENT_VERSION,
        "lines": Overwrite(lines),
        "total": total,
        "currency": state.get("currency", "EUR"),
        "archive": dict(state.get("archive") or {}),
    }


def build_order_graph(checkpointer=None):
    """Release 3: wait (interrupt "confirm") -> add (one line) -> total."""

    def wait(state: OrderState) -> dict:
        interrupt("confirm")  # any resume value confirms
        return {}

    def add(state: OrderState) -> dict:
        return {"lines": [{"text": "x", "qty": 1}]}

    def total(state: OrderState) -> dict:
        return {"total": sum(line["qty"] for line in state.get("lines") or [])}

    builder = StateGraph(OrderState)
    builder.add_node("wait", wait)
    builder.add_node("add", add)
    builder.add_node("total", total)
    builder.add_edge(START, "wait")
    builder.add_edge("wait", "add")
    builder.add_edge("add", "total")
    builder.add_edge("total", END)
    return builder.compile(checkpointer=checkpointer)
