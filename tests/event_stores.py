"""The reference event stores for tests: part C's reference module, loaded from solutions/, and store openers.

``import agstate.events`` in the test process would find the learner's stub
(the installed package), so the reference is loaded from its file.
"""

import importlib.util
import uuid

from conftest import SOLUTIONS

__all__ = ["reference", "sqlite_file_opener", "postgres_opener"]


def _load():
    spec = importlib.util.spec_from_file_location("reference_events", SOLUTIONS / "agstate" / "events.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _load()


def sqlite_file_opener(folder):
    """A function opening a new connection to one SQLite file in ``folder``."""
    path = str(folder / f"events-{uuid.uuid4().hex[:8]}.db")
    return lambda: reference.SqliteEventStore(path)


def postgres_opener(url: str):
    """A function opening a new connection to ``url``, after emptying its events table once."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        db.execute("DROP TABLE IF EXISTS events")
    return lambda: reference.PostgresEventStore(url)
