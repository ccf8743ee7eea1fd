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

    ### BEGIN SOLUTION state.overwrite
    trace: list[str]
    ### STUB
    # pass
    ### END SOLUTION


def _items(new) -> list:
    """The items a write carries: a list/tuple holds items, anything else is one."""
    ### BEGIN SOLUTION state.append
    if isinstance(new, (list, tuple)):
        return list(new)
    return [new]
    ### END SOLUTION


def append(old, new) -> list:
    """Items of ``old`` then items of ``new``, in order.

    Laws: associative; not commutative; not idempotent (a retried write is
    appended twice).
    """
    ### BEGIN SOLUTION state.append
    return [*(old or ()), *_items(new)]
    ### END SOLUTION


def merge_sources(old, new) -> list:
    """Items of ``old`` then ``new``, keeping only the first occurrence of each.

    The result never holds a duplicate, also when ``old`` already did. Items
    are hashable. Linear time: 50,000 items take well under a second.
    Laws: associative, idempotent; not commutative (first occurrence wins).
    """
    ### BEGIN SOLUTION state.dedupe
    # A set answers "seen before?" in O(1); `item not in out` scans the list
    # and makes the whole merge quadratic.
    seen = set()
    merged = []
    for item in (*(old or ()), *_items(new)):
        if item not in seen:
            seen.add(item)
            merged.append(item)
    return merged
    ### END SOLUTION


def keep_max(old, new):
    """The larger of ``old`` and ``new``; ``None`` means absent.

    ``keep_max(None, x) == x``, ``keep_max(x, None) == x`` and
    ``keep_max(None, None) is None``. Zero and negative numbers are values,
    not absence. Works for any mutually comparable values (ints, floats,
    strs). Laws: commutative, associative, idempotent.
    """
    ### BEGIN SOLUTION state.keep_max
    # `is None`, never truthiness: 0 is a real score.
    if old is None:
        return new
    if new is None:
        return old
    return new if new > old else old
    ### END SOLUTION


def keep_recent(old, new) -> list:
    """The last ``WINDOW`` items of ``old`` + ``new``, in order.

    Laws: associative; not commutative.
    """
    ### BEGIN SOLUTION state.window
    return append(old, new)[-WINDOW:]
    ### END SOLUTION


def windowed(n: int) -> Callable:
    """A reducer keeping the last ``n`` items of ``old`` + ``new``, in order.

    The reducer takes exactly two positional parameters, so LangGraph accepts
    it in ``Annotated[list[str], windowed(5)]``; ``windowed(WINDOW)`` behaves
    as ``keep_recent``. ``n`` must be an int >= 1, else ``ValueError`` is
    raised here, at ``windowed(...)``, not later inside a graph run.
    """
    ### BEGIN SOLUTION state.window
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"windowed(n) needs an int n >= 1 (got {n!r})")
    # A closure, not a third parameter with a default: LangGraph rejects a
    # reducer whose signature is not exactly (old, new).
    def keep_last(old, new) -> list:
        return append(old, new)[-n:]

    keep_last.__name__ = f"keep_last_{n}"
    return keep_last
    ### END SOLUTION


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

    ### BEGIN SOLUTION state.append state.budget
    question: str
    trace: Annotated[list[str], append]
    sources: Annotated[list[str], merge_sources]
    used_calls: Annotated[int, operator.add]
    best_score: Annotated[int | None, keep_max]
    recent: Annotated[list[str], keep_recent]
    notes: Annotated[list[str], append]
    answer: str
    ### STUB
    # pass
    ### END SOLUTION


class InputState(TypedDict):
    """What a caller may send in: exactly ``question``."""

    ### BEGIN SOLUTION state.schemas
    question: str
    ### STUB
    # pass
    ### END SOLUTION


class OutputState(TypedDict):
    """What a caller gets back: exactly ``answer``, ``trace``, ``sources``, ``used_calls``.

    Internal keys (``notes``, ``recent``, ``best_score``) never leave the graph.
    """

    ### BEGIN SOLUTION state.schemas
    answer: str
    trace: list[str]
    sources: list[str]
    used_calls: int
    ### STUB
    # pass
    ### END SOLUTION


# Every key of State -> its merge rule and visibility, and why.
### BEGIN SOLUTION state.decisions
DECISIONS: dict[str, str] = {
    "question": "Overwrite, visible as input: one question per run; a new question replaces the old one.",
    "trace": "Append, visible in the output: the caller audits every node that ran, in order.",
    "sources": "Merge keeping the first occurrence, visible: a re-cited document must be listed once.",
    "used_calls": "Sum with operator.add, visible: each lookup adds the calls it spent to the budget.",
    "best_score": "Keep the max of an int-or-None, internal: None means no score yet, so a first negative score is kept.",
    "recent": "Keep the last WINDOW items, internal: the agent needs only recent lookups and checkpoints stay small.",
    "notes": "Append, internal: scratch notes help the nodes but must never leak to the caller.",
    "answer": "Overwrite, visible in the output: the final node writes the one answer the caller gets.",
}
### STUB
# DECISIONS: dict[str, str] = {}
### END SOLUTION


def build_graph(checkpointer=None):
    """The research agent: ``intake`` → ``lookup`` × LOOKUP_ROUNDS → ``finish``.

    ``StateGraph(State, input_schema=InputState, output_schema=OutputState)``.
    ``lookup`` calls ``search_docs`` and ``relevance`` from ``agstate.tools``,
    re-citing sources, adding notes and scores and one call to
    ``used_calls`` per round. ``invoke({"question": q})`` returns exactly the
    OutputState keys; ``trace`` lists every node run, in order.
    """
    ### BEGIN SOLUTION state.schemas
    def intake(state: InputState) -> dict:
        return {"trace": ["intake"], "notes": [f"question received: {state['question']}"]}

    def lookup(state: State) -> dict:
        round_no = state.get("used_calls", 0) + 1
        found = search_docs(state["question"], round_no)
        return {
            "trace": ["lookup"],
            "sources": found,
            "used_calls": 1,
            "best_score": relevance(state["question"], round_no),
            "recent": [f"round {round_no}: {', '.join(found)}"],
            "notes": [f"round {round_no} found {len(found)} documents"],
        }

    def finish(state: State) -> dict:
        cited = ", ".join(state["sources"])
        return {"trace": ["finish"], "answer": f"{state['question']} — see {cited}"}

    def more_rounds(state: State) -> str:
        return "lookup" if state["used_calls"] < LOOKUP_ROUNDS else "finish"

    builder = StateGraph(State, input_schema=InputState, output_schema=OutputState)
    builder.add_node("intake", intake)
    builder.add_node("lookup", lookup)
    builder.add_node("finish", finish)
    builder.add_edge(START, "intake")
    builder.add_edge("intake", "lookup")
    builder.add_conditional_edges("lookup", more_rounds, ["lookup", "finish"])
    builder.add_edge("finish", END)
    return builder.compile(checkpointer=checkpointer)
    ### END SOLUTION
