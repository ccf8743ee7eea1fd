"""Child side: the scaffolding of part D's concurrency probes (imported by the part's probes only).

A correct stream for the resolver probes, a stream that lets a rival
resolver win at the worst moment, and threads that race in lockstep. Like the
probes, it runs in the learner's process and imports nothing of the grading side.
"""

import copy
import functools

from grader.child.lockstep import CooperativeLock, cooperative_locks, run_in_lockstep
from grader.child.probes import Raised

__all__ = ["trusted_stream", "Interleaved", "race", "learner_stream", "StreamNotBuilt", "reports_unbuilt_stream"]


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


def trusted_stream(ctx, stream_id, events=()):
    """A correct stream for the resolver probes, so a broken ``CaseStream`` fails only its own task.

    It is the learner's ``CaseStream`` class (their ``__init__`` runs) with
    version, append and events done right, on ``_events`` as the stub names
    it, raising the learner's ``StaleVersion``.
    """
    stale = ctx.get("StaleVersion")

    class TrustedStream(ctx.get("CaseStream")):
        def __init__(self, stream_id):
            super().__init__(stream_id)
            # Cooperative: the learner's StaleVersion.__init__ runs while it is held, and is a lockstep step.
            self._events, self._trusted_lock = [], CooperativeLock()

        @property
        def version(self):
            return len(self._events)

        def append(self, event, expected_version):
            with self._trusted_lock:
                if expected_version != len(self._events):
                    raise stale(expected_version, len(self._events))
                self._events.append(copy.deepcopy(event))
                return len(self._events)

        def events(self):
            with self._trusted_lock:
                return copy.deepcopy(self._events)

    # The learner's own class name in any message their __init__ or StaleVersion gives (never "TrustedStream").
    TrustedStream.__name__ = TrustedStream.__qualname__ = ctx.get("CaseStream").__name__
    stream = ctx.attempt(lambda: TrustedStream(stream_id))  # the learner's __init__ runs in it
    if isinstance(stream, Raised):
        raise StreamNotBuilt(stream)
    for version, event in enumerate(events):
        stream.append(copy.deepcopy(event), version)
    return stream


class Interleaved:
    """A stream that lets another resolver win between the caller's read and its first append."""

    def __init__(self, stream, other):
        self._stream, self._other, self.appends = stream, other, 0

    def __getattr__(self, name):  # anything else the learner's code reads is the real stream's
        return getattr(self._stream, name)

    @property
    def version(self):
        return self._stream.version

    def events(self):
        return self._stream.events()

    def append(self, event, expected_version):
        self.appends += 1
        if self._other is not None:
            other, self._other = self._other, None
            other()
        return self._stream.append(event, expected_version)


def race(ctx, calls, attrs=()):
    """Run every call in its own thread, in lockstep (``grader.child.lockstep``); each one's ``{"result": value or Raised}``.

    The threads take turns one bytecode of the learner's code at a time, so
    writers that check, then write, all check before any writes: a race that
    a lock would prevent happens on every run. A stub's NotImplementedError
    gets past ``ctx.attempt`` and is raised again here, in the probe's own
    thread, so the task reads as not written yet rather than as a lost race.
    """
    return run_in_lockstep([lambda call=call: {"result": ctx.attempt(call, attrs)} for call in calls], ctx.module.__file__)
