"""Part A — reducers and schemas: give every key of an agent's state a merge rule.

A LangGraph state key without a reducer keeps only the last value written to
it. Every key here says how a new write combines with what is stored, and
which keys a caller may send in or get back.

Rules every reducer in this module follows:
- it returns a new value; a list result is exactly a ``list`` (not a
  subclass, not a tuple) and never one of its arguments;
- it never mutates its arguments;
- ``old`` may be ``None``: nothing stored yet;
- ``new`` may be a list or tuple of items, or a single item: a bare ``str``
  is one item, never split into characters.

Notebooks: 01_overwrite … 06_schemas. Check with ``check("state")``.
"""

import operator
from collections.abc import Callable
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from agstate.tools import relevance, search_docs

__all__ = [
    "WINDOW",
    "LOOKUP_ROUNDS",
    "NaiveState",
    "append",
    "merge_sources",
    "keep_max",
    "keep_recent",
    "windowed",
    "State",
    "InputState",
    "OutputState",
    "DECISIONS",
    "build_graph",
]

WINDOW = 3
LOOKUP_ROUNDS = 3  # any int >= 2


class NaiveState(TypedDict):
    """The seed's state: ``trace`` has no merge rule on purpose (notebook 01).

    Sequential nodes overwrite each other's ``trace``; two nodes writing it in
    the same step raise ``InvalidUpdateError``. Declare ``trace: list[str]``
    with no reducer, so the notebook can show both.
    """

    pass


def _items(new) -> list:
    """The items a write carries: a list/tuple holds items, anything else is one."""
    raise NotImplementedError('state.append: _items() is not written yet; complete it in agstate/state.py (notebook 02_append_and_budget.ipynb)')


def append(old, new) -> list:
    """Items of ``old`` then items of ``new``, in order.

    Laws: associative; not commutative; not idempotent (a retried write is
    appended twice).
    """
    raise NotImplementedError('state.append: append() is not written yet; complete it in agstate/state.py (notebook 02_append_and_budget.ipynb)')


def merge_sources(old, new) -> list:
    """Items of ``old`` then ``new``, keeping only the first occurrence of each.

    The result never holds a duplicate, also when ``old`` already did. Items
    are hashable. Linear time: 50,000 items take well under a second.
    Laws: associative, idempotent; not commutative (first occurrence wins).
    """
    raise NotImplementedError('state.dedupe: merge_sources() is not written yet; complete it in agstate/state.py (notebook 03_dedupe.ipynb)')


def keep_max(old, new):
    """The larger of ``old`` and ``new``; ``None`` means absent.

    ``keep_max(None, x) == x``, ``keep_max(x, None) == x`` and
    ``keep_max(None, None) is None``. Zero and negative numbers are values,
    not absence. Works for any mutually comparable values (ints, floats,
    strs). Laws: commutative, associative, idempotent.
    """
    raise NotImplementedError('state.keep_max: keep_max() is not written yet; complete it in agstate/state.py (notebook 04_keep_max.ipynb)')


def keep_recent(old, new) -> list:
    """The last ``WINDOW`` items of ``old`` + ``new``, in order.

    Laws: associative; not commutative.
    """
    raise NotImplementedError('state.window: keep_recent() is not written yet; complete it in agstate/state.py (notebook 05_windows.ipynb)')


def windowed(n: int) -> Callable:
    """A reducer keeping the last ``n`` items of ``old`` + ``new``, in order.

    The reducer takes exactly two positional parameters, so LangGraph accepts
    it in ``Annotated[list[str], windowed(5)]``; ``windowed(WINDOW)`` behaves
    as ``keep_recent``. ``n`` must be an int >= 1, else ``ValueError`` is
    raised here, at ``windowed(...)``, not later inside a graph run.
    """
    raise NotImplementedError('state.window: windowed() is not written yet; complete it in agstate/state.py (notebook 05_windows.ipynb)')


class State(TypedDict, total=False):
    """The research agent's state: exactly these keys, each with its merge rule.

    No other key: a node that counts its lookup rounds reads ``used_calls``.

    question    str                                overwrite
    trace       Annotated[list[str], append]       every node run, in order
    sources     Annotated[list[str], merge_sources] cited documents, no duplicates
    used_calls  Annotated[int, operator.add]       lookups spent (the budget)
    best_score  Annotated[int | None, keep_max]    best relevance; None-able so
                                                   a first negative score survives
    recent      Annotated[list[str], keep_recent]  the last WINDOW lookups
    notes       Annotated[list[str], append]       internal scratch notes
    answer      str                                overwrite
    """

    pass


class InputState(TypedDict):
    """What a caller may send in: exactly ``question``."""

    pass


class OutputState(TypedDict):
    """What a caller gets back: exactly ``answer``, ``trace``, ``sources``, ``used_calls``.

    Internal keys (``notes``, ``recent``, ``best_score``) never leave the graph.
    """

    pass


# Every key of State -> its merge rule and visibility, and why.
DECISIONS: dict[str, str] = {}


def build_graph(checkpointer=None):
    """The research agent: ``intake`` → ``lookup`` × LOOKUP_ROUNDS → ``finish``.

    ``StateGraph(State, input_schema=InputState, output_schema=OutputState)``.
    ``lookup`` calls ``search_docs`` and ``relevance`` from ``agstate.tools``,
    re-citing sources, adding notes and scores and one call to
    ``used_calls`` per round. ``invoke({"question": q})`` returns exactly the
    OutputState keys; ``trace`` lists every node run, in order.
    """
    raise NotImplementedError('state.schemas: build_graph() is not written yet; complete it in agstate/state.py (notebook 06_schemas.ipynb)')
