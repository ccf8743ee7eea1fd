"""The scenarios every part uses, run in the grading process: a schema's merge rules as LangGraph builds them.

``channels`` rebuilds the learner's TypedDict here (``grader.engine.rebuild``)
and lets LangGraph build a channel for each key: which keys there are, which
merge as they are written (a reducer, named as the learner's function is)
and which keep the last write. A part's own scenarios are in its
``scenarios.py``.
"""

from langgraph.graph import StateGraph

from grader.engine.remote import Remote, scenario

__all__ = ["channels"]


@scenario
def channels(remote: Remote, schema_name):
    """The keys of a TypedDict schema and the channel LangGraph builds for each, or what building them raised."""
    return remote.attempt(lambda: _channels(remote.schema(schema_name)))


def _channels(schema) -> dict:
    builder = StateGraph(schema)  # LangGraph inspects each reducer here, as it would in the learner's graph
    keys = list(schema.__annotations__)
    found = {}
    for key in keys:
        channel = builder.channels.get(key)
        operator = getattr(channel, "operator", None)
        found[key] = {"channel": type(channel).__name__,
                      "reducer": getattr(operator, "__name__", None) if operator is not None else None}
    return {"keys": keys, "channels": found}
