"""Provided helper (not an exercise, never graded): the fakes, the form and the releases of Part F.

Part F's graphs ask a person, pay, and outlive their code. Here, offline:

- ``Inbox`` and ``Payments``: a fake approval inbox and a fake payment tool.
  Both record every call and take an idempotency key: a call under a key
  already seen does nothing more (``pay`` returns the first receipt). Pass
  ``crash="before"`` or ``crash="after"`` to make the next call fail once
  with ``Crash``, before or after it takes effect: the process dying there.
- ``Stock``: whether each question of the intake ``FORM`` must be asked; it
  may change its answers (``change()``), as a real stock does.
- ``merge_tags``: the ``tags`` reducer of ``ReviewState``.
- ``VERSIONS``: each release's state keys and their merge rules, and
  ``build_release_graph(version)``: releases 1 and 2 of the order graph,
  the ones an old thread was paused under (release 3 is yours).

The grader lends its own fakes with the same methods and keeps their ledgers.
"""

import operator
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict

__all__ = ["Crash", "Inbox", "Payments", "Stock", "FORM", "merge_tags", "VERSIONS", "build_release_graph"]


class Crash(RuntimeError):
    """The process died here (a fake's ``crash=``): the step it cut short is lost, its checkpoint never written."""


class _Keyed:
    """A fake whose calls are recorded in ``calls``, and whose effects happen once per idempotency key."""

    def __init__(self, crash: str | None = None):
        self.calls: list[tuple] = []  # every call, repeats included
        self.effects: dict[str, object] = {}  # key -> what the first call under it did
        self.crash = crash

    def _once(self, key: str, call: tuple, effect):
        self.calls.append(call)
        crash, self.crash = self.crash, None
        if crash == "before":
            raise Crash(f"crashed before {call[0]} under {key!r} took effect")
        if key not in self.effects:
            self.effects[key] = effect()
        if crash == "after":
            raise Crash(f"crashed after {call[0]} under {key!r} took effect")
        return self.effects[key]


class Inbox(_Keyed):
    """A person's inbox: ``send(key, message)``; ``sent`` holds what reached the person, once per key."""

    def __init__(self, crash: str | None = None):
        super().__init__(crash)
        self.sent: list[dict] = []

    def send(self, key: str, message: dict) -> None:
        self._once(key, ("send", key, message), lambda: self.sent.append(dict(message)))


class Payments(_Keyed):
    """A payment tool: ``pay(key, payee, amount)`` returns a receipt; ``paid`` holds the money that left, once per key."""

    def __init__(self, crash: str | None = None):
        super().__init__(crash)
        self.paid: list[tuple[str, int]] = []

    def pay(self, key: str, payee: str, amount: int) -> str:
        def effect():
            self.paid.append((payee, amount))
            return f"receipt-{len(self.paid)}"

        return self._once(key, ("pay", key, payee, amount), effect)


# The intake form's questions, in the order they are asked.
FORM = ["size", "colour", "gift_wrap", "engraving", "delivery_day"]


class Stock:
    """Which questions of ``FORM`` must be asked: ``needs(question)``; ``change()`` flips them all (the stock moved)."""

    def __init__(self, needed: set[str] | list[str]):
        self.needed = set(needed)
        self.asked: list[str] = []  # every call of needs, in order

    def needs(self, question: str) -> bool:
        self.asked.append(question)
        return question in self.needed

    def change(self) -> None:
        self.needed = set(FORM) - self.needed


def merge_tags(old: list[str] | None, new: list[str]) -> list[str]:
    """A reducer: the union of ``old`` and ``new``, in first-seen order (a tag already there is not added again)."""
    merged = list(old or [])
    for tag in new:
        if tag not in merged:
            merged.append(tag)
    return merged


# Each release of the order's state: its keys and how each merges ("append": operator.add; "last": the last write).
VERSIONS = {
    1: {"version": "last", "items": "append", "total": "last"},
    2: {"version": "last", "lines": "append", "total": "last"},
    3: {"version": "last", "lines": "append", "total": "last", "currency": "last", "archive": "last"},
}


class _Release1(TypedDict, total=False):
    version: int
    items: Annotated[list[str], operator.add]
    total: int


class _Release2(TypedDict, total=False):
    version: int
    lines: Annotated[list[str], operator.add]
    total: int


def _wait(state) -> dict:
    interrupt("confirm")  # any answer confirms
    return {}


def build_release_graph(version: int, checkpointer=None):
    """Release ``version`` (1 or 2) of the order graph: ``wait`` pauses on ``"confirm"``, ``add`` appends ``"x"``,
    ``total`` counts the lines. A thread starts with ``invoke(<a state of that release>, config)``."""
    if version not in (1, 2):  # release 3's graph is the exercise's build_order_graph; upgrade_update takes 3 too
        raise ValueError(f"build_release_graph builds releases 1 and 2; release 3's graph is build_order_graph, "
                         f"not {version!r}")
    key = "items" if version == 1 else "lines"
    graph = StateGraph(_Release1 if version == 1 else _Release2)
    graph.add_node("wait", _wait)
    graph.add_node("add", lambda state: {key: ["x"]})
    graph.add_node("total", lambda state: {"total": len(state[key])})
    graph.add_edge(START, "wait")
    graph.add_edge("wait", "add")
    graph.add_edge("add", "total")
    graph.add_edge("total", END)
    return graph.compile(checkpointer=checkpointer)
