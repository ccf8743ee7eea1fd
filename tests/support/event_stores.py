"""The reference event stores for tests: part C's reference module, loaded from solutions/, and store openers.

``import agstate.events`` in the test process would find the learner's stub
(the installed package), so the reference is loaded from its file.
"""

import importlib.util
import os
import signal
import uuid

from support.paths import SOLUTIONS

__all__ = ["reference", "sqlite_file_opener", "postgres_opener", "crash_writer"]


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


def crash_writer(open_store, task_id, events, kill_after, start_seq=1) -> list[int]:
    """Fork a writer appending ``events`` from ``start_seq`` without pause; SIGKILL it after ``kill_after`` acks.

    The seqs it acknowledged (its append returned) before it died: the kill
    lands wherever it lands, most likely inside the next append, and every
    acknowledgement sent counts, ``kill_after`` or more. The grader's own
    killed writer is another learner process (grader.parts.events.scenarios);
    this one is the crash tests' stress, thousands of kills a minute.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read_end)
            store = open_store()
            for seq, (kind, payload) in enumerate(events, start_seq):
                store.append(task_id, seq, kind, payload)
                os.write(write_end, f"{seq}\n".encode())  # acknowledged: append returned
        except BaseException:
            code = 3
        os._exit(code)
    os.close(write_end)
    acked, buffer = [], b""
    while len(acked) < kill_after:
        chunk = os.read(read_end, 4096)
        if not chunk:
            break
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        acked += [int(line) for line in lines]
    os.kill(pid, signal.SIGKILL)  # mid-append, most likely: the writer never waits between appends
    os.waitpid(pid, 0)
    while chunk := os.read(read_end, 4096):  # acknowledgements sent before it died, read or not yet: each returned
        buffer += chunk
    acked += [int(line) for line in buffer.split(b"\n") if line]
    os.close(read_end)
    return acked
