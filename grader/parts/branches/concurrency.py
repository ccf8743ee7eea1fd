"""Child side: the scaffolding of part D's concurrency probes (imported by ``probes.py`` only).

A correct stream for the resolver probes, a stream that lets a rival
resolver win at the worst moment, and threads released at once. Like the
probes, it runs in the learner's process and imports nothing of the grading side.
"""

import copy
import sys
import threading

__all__ = ["trusted_stream", "Interleaved", "race"]


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
            self._events, self._trusted_lock = [], threading.Lock()

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

    stream = TrustedStream(stream_id)
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
    """Run every call in its own thread, all released at once; each one's ``{"result": value or Raised}``.

    An answer is None when its thread had not finished after 5 s. A stub's
    NotImplementedError gets past ``ctx.attempt`` and would only end its
    thread: it is raised again here, in the probe's own thread, so the task
    reads as not written yet rather than as a lost race.
    """
    barrier = threading.Barrier(len(calls))
    answers, escaped = [None] * len(calls), [None] * len(calls)

    def run(index):
        barrier.wait()
        try:
            answers[index] = {"result": ctx.attempt(calls[index], attrs)}
        except BaseException as exc:  # only what attempt lets through; kept for the probe's thread
            escaped[index] = exc

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: check-then-append races show up
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(5)
    finally:
        sys.setswitchinterval(old_interval)
    for exc in escaped:
        if isinstance(exc, NotImplementedError):
            raise exc
    return answers
