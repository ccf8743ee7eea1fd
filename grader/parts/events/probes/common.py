"""What part C's probes share: a scratch folder per probe, the learner's store, events as plain data."""

import functools
import shutil
import tempfile

from grader.child import guard

__all__ = ["dump", "scratch", "remove_scratch", "learner_store", "CONFLICT_ATTRS"]


def dump(value):
    """An event (or list of them) as plain data; anything else as it is (the wire marks it opaque)."""
    if isinstance(value, list):
        return [dump(item) for item in value]
    as_json = getattr(value, "model_dump", None)
    return as_json(mode="json") if callable(as_json) else value


# What a rule reads of a ConcurrencyError: ConcurrencyError(task_id, expected, actual).
CONFLICT_ATTRS = ("task_id", "expected", "actual")


def scratch(fn):
    """The probe gets a fresh temp dir (after ``ctx``), removed when it returns: nothing piles up in /tmp."""
    @functools.wraps(fn)
    def run(ctx, *args):
        folder = tempfile.mkdtemp(prefix="agstate-events-")
        try:
            return fn(ctx, folder, *args)
        finally:
            remove_scratch(folder)

    return run


def remove_scratch(folder: str) -> None:
    """A probe's temp dir, removed with what is in it, the learner's stores included."""
    with guard.permitted():
        shutil.rmtree(folder, ignore_errors=True)


def learner_store(ctx, path=None):
    """The learner's SqliteEventStore, on a file or in memory."""
    return ctx.get("SqliteEventStore")(path) if path else ctx.get("SqliteEventStore")()
