"""Part F's paused threads updated by hand: a person's edit (``edit_update``) and an upgrade (``upgrade_update``).

The learner's function makes the update; the grader applies it with
``update_state`` (without ``as_node``) to a thread paused on its own
checkpointer: a ``ReviewState`` graph of the grader's for an edit, a thread
of the grader's release 1 or 2 graph (or of the learner's release 3) for an
upgrade, applied and resumed through the learner's ``build_order_graph``.
"""

import copy
import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Overwrite, interrupt
from typing_extensions import TypedDict

from grader.engine.handles import SAVER, Raised
from grader.engine.remote import Remote, scenario
from grader.parts.pauses.model import CURRENT, VERSIONS, lines_key, merge_tags
from grader.parts.pauses.scenarios_data import plain, saver_problem

__all__ = ["edit_run", "upgrade_run", "release_graph", "described"]


class Review(TypedDict, total=False):
    draft: str
    notes: Annotated[list[str], operator.add]
    tags: Annotated[list[str], merge_tags]


class _Release1(TypedDict, total=False):
    version: int
    items: Annotated[list, operator.add]
    total: int


class _Release2(TypedDict, total=False):
    version: int
    lines: Annotated[list, operator.add]
    total: int


def _chain(builder: StateGraph, names: list[str]) -> StateGraph:
    for before, after in zip([START, *names], [*names, END]):
        builder.add_edge(before, after)
    return builder


def _wait(state) -> dict:
    interrupt("confirm")  # any answer confirms
    return {}


def release_graph(version: int, saver):
    """The grader's own graph of release 1 or 2 (docs/reference/part-f.md): wait, add, total."""
    key = lines_key(version)
    builder = StateGraph(_Release1 if version == 1 else _Release2)
    builder.add_node("wait", _wait)
    builder.add_node("add", lambda state: {key: ["x"]})
    builder.add_node("total", lambda state: {"total": len(state[key])})
    return _chain(builder, ["wait", "add", "total"]).compile(checkpointer=saver)


def described(update) -> object:
    """An update as a rule reads it: each key's value, marked when it is an ``Overwrite``."""
    if not isinstance(update, dict):
        return {"not a dict": plain(update)}
    return {str(key): {"Overwrite": plain(value.value)} if isinstance(value, Overwrite) else {"value": plain(value)}
            for key, value in update.items()}


def _review_graph(saver, heard: list):
    def review(state):
        heard.append(plain(interrupt("review")))
        return {}

    return _chain(StateGraph(Review).add_node("review", review), ["review"]).compile(checkpointer=saver)


@scenario
def edit_run(remote: Remote, state, key, edit):
    """``edit_update(key, current, edit)`` on a thread paused with ``state``: the update, the thread after it, resumed."""
    current = copy.deepcopy(state.get(key)) if key in state else None
    facts = remote.attempt(lambda: remote.call_facts("edit_update", key, current, edit))
    if isinstance(facts, Raised):
        return {"raised": facts}
    update, heard, saver = facts["result"], [], InMemorySaver()
    config = {"configurable": {"thread_id": "review"}}
    graph = _review_graph(saver, heard)
    graph.invoke(state, config)
    applied = remote.attempt(lambda: graph.update_state(config, update))
    after = graph.get_state(config)
    resumed = remote.attempt(lambda: graph.invoke(Command(resume="looks good"), config))
    final = graph.get_state(config)
    return {"raised": None, "update": described(update), "current_after": plain(facts["args_after"][1]),
            "applied": applied if isinstance(applied, Raised) else None, "after": plain(dict(after.values)),
            "next_after": list(after.next), "resumed": resumed if isinstance(resumed, Raised) else None,
            "heard": heard, "final": plain(dict(final.values)), "next_final": list(final.next)}


def _thread(remote: Remote, old, new, saver, version: int, values: dict, thread: str, times: int) -> dict:
    config = {"configurable": {"thread_id": thread}, "recursion_limit": 25}
    started = remote.attempt(lambda: old.invoke(copy.deepcopy(values), config, durability="sync"))
    checkpoint = saver.get_tuple(config)
    if isinstance(started, Raised) or checkpoint is None:  # release 3's thread, started by the learner's graph
        return {"raised": started if isinstance(started, Raised) else None, "starting": True}
    stored = checkpoint.checkpoint["channel_values"]
    shown = [plain(pause.value) for pause in (started.get("__interrupt__") or ())] if isinstance(started, dict) else []
    saved = {key: copy.deepcopy(stored[key]) for key in VERSIONS[version] if key in stored}
    update = remote.attempt(lambda: remote.call("upgrade_update", copy.deepcopy(saved), version))
    if isinstance(update, Raised):
        return {"saved": plain(saved), "raised": update, "shown": shown}
    for _ in range(times):
        applied = remote.attempt(lambda: new.update_state(config, update))
        if isinstance(applied, Raised):
            return {"saved": plain(saved), "update": described(update), "raised": applied, "applying": True, "shown": shown}
    after = new.get_state(config)
    resumed = remote.attempt(lambda: new.invoke(Command(resume=True), config, durability="sync"))
    final = new.get_state(config)
    return {"saved": plain(saved), "update": described(update), "raised": resumed if isinstance(resumed, Raised) else None,
            "shown": shown,
            "after": plain(dict(after.values)), "next_after": list(after.next),
            "final": plain(dict(final.values)), "next_final": list(final.next)}


@scenario
def upgrade_run(remote: Remote, version, values):
    """A thread paused under release ``version`` with ``values``, upgraded once and (another thread) twice, resumed
    by the learner's release 3."""
    saver = InMemorySaver()
    remote.lend_interrupt("pauses")
    new = remote.attempt(lambda: remote.graph(remote.call("build_order_graph", checkpointer=SAVER), saver))
    if isinstance(new, Raised) or saver_problem(new, saver):
        return {"built": new if isinstance(new, Raised) else saver_problem(new, saver)}
    old = new if version == CURRENT else release_graph(version, saver)
    once = _thread(remote, old, new, saver, version, values, "once", 1)
    twice = _thread(remote, old, new, saver, version, values, "twice", 2)
    return {"built": None, "once": once, "twice": twice}
