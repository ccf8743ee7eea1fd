"""Child side: the scaffolding of part D's concurrency probes (imported by the part's probes only).

The learner's stream, its locks made cooperative, and threads that race in
lockstep. Like the probes, it runs in the learner's process and imports
nothing of the grading side.
"""

import functools

from grader.child.lockstep import cooperative_locks, run_in_lockstep
from grader.child.probes import Raised

__all__ = ["race", "learner_stream", "StreamNotBuilt", "reports_unbuilt_stream"]


class StreamNotBuilt(Exception):
    """The learner's ``CaseStream(...)`` raised: the probe reports that, and runs nothing on a stream it does not have."""

    def __init__(self, raised):
        super().__init__(raised.sentence())
        self.raised = raised


def reports_unbuilt_stream(probe_fn):
    """A probe's reply is ``{"stream_raised": Raised}`` when the learner's ``CaseStream(...)`` raised."""

    @functools.wraps(probe_fn)
    def run(ctx, *args):
        try:
            return probe_fn(ctx, *args)
        except StreamNotBuilt as unbuilt:
            return {"stream_raised": unbuilt.raised}

    return run


def learner_stream(ctx, stream_id):
    """The learner's ``CaseStream(stream_id)``, its locks made cooperative: a lockstep run sees who waits for them."""
    with cooperative_locks(ctx.module):
        stream = ctx.attempt(lambda: ctx.get("CaseStream")(stream_id))
    if isinstance(stream, Raised):
        raise StreamNotBuilt(stream)
    return stream


def race(ctx, calls, attrs=()):
    """Run every call in its own thread, in lockstep (``grader.child.lockstep``); each one's ``{"result": value or Raised}``.

    The threads take turns one bytecode of the learner's code at a time, so
    writers that check, then write, all check before any writes: a race that
    a lock would prevent happens on every run. A stub's NotImplementedError
    gets past ``ctx.attempt`` and is raised again here, in the probe's own
    thread, so the task reads as not written yet rather than as a lost race.
    """
    return run_in_lockstep([lambda call=call: {"result": ctx.attempt(call, attrs)} for call in calls], ctx.module.__file__)
