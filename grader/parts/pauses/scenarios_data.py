"""What the pauses scenarios give the rules: a run's values as plain data, and the words for a graph that cannot pause."""

from langgraph.types import Overwrite

from grader.engine.handles import LearnerRaised
from grader.i18n import N_, _

__all__ = ["plain", "NO_CHECKPOINTER", "OWN_CHECKPOINTER", "saver_problem"]

# A graph compiled without a checkpointer cannot pause (LangGraph 1.2 fails in its own code under durability="sync"):
# the learner reads why.
NO_CHECKPOINTER = N_("the graph was compiled without the checkpointer it was given; a run that pauses needs one: "
                     "compile(checkpointer=checkpointer)")
# One compiled with a checkpointer of its own keeps its threads in the process that dies with the worker.
OWN_CHECKPOINTER = N_("the graph was compiled with a checkpointer of its own, not the one it was given: its paused threads "
                      "live in its process and end with it; compile(checkpointer=checkpointer)")


def saver_problem(graph, saver):
    """What is wrong with where a rebuilt graph keeps its threads (``NO_CHECKPOINTER``, ``OWN_CHECKPOINTER``, said as
    the ValueError the learner reads, in their language), or None."""
    if graph.checkpointer is None:
        return LearnerRaised.saying("ValueError", _(NO_CHECKPOINTER)).raised
    return None if graph.checkpointer is saver else LearnerRaised.saying("ValueError", _(OWN_CHECKPOINTER)).raised


def plain(value):
    """A value of a run as data for a rule: an Overwrite stored as such (a key without a reducer) shown as one."""
    if isinstance(value, Overwrite):
        return {"Overwrite": plain(value.value)}
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return f"<{type(value).__name__}>"
