"""Part C's probe of the projection: ``project_state`` folded over every prefix of a log, in the learner's process.

A pure fold of the learner's own function over what the grading side sent,
with nothing of the grader's between its steps: any answer this process
gives is one the learner's ``project_state`` could honestly give, so it is
one round trip, as the board's fold is (``grader.parts.board.probes``).
"""

from grader.child.probes import probe
from grader.parts.events.probes.common import dump

__all__ = ["project"]


@probe
def project(ctx, events):
    """``project_state`` on every prefix of ``events`` (built as the learner's ``Event``s); and the events afterwards."""
    Event = ctx.get("Event")
    built = [Event(**event) for event in events]
    fold = ctx.get("project_state")
    states = [ctx.attempt(lambda k=k: dump(fold(built[:k]))) for k in range(len(built) + 1)]
    return {"states": states, "events_after": dump(built)}
