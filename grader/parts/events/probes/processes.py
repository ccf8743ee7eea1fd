"""Part C's forked processes, child side: racing writers and writers killed mid-append.

The ``race`` and ``durable_crash`` probes (``probes``) need other processes
on the same database file: a fork with its own store that appends when told
and can be stopped between its check and its write (``RaceWriter``), or one
that appends until it is killed (``crash_writer``). They live
here, apart from the probes, because they are plumbing (pipes, signals, exit
statuses), not scenarios; so is ``unique_keys``, reading the schema of the file a killed writer
left. Like the probes, nothing here imports the grading side.
"""

import gc
import json
import os
import select
import signal
import sqlite3

from grader import wire
from grader.child import guard
from grader.child.probes import Raised

__all__ = ["BLOCKED_AFTER", "RaceWriter", "crash_writer", "forked", "unique_keys", "write_locked"]

BLOCKED_AFTER = 2.0  # a rival append that has not finished by then is waiting for a lock


def forked(body) -> int:
    """Run ``body()`` in a forked process; its pid. The process never returns into the caller's code."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            body()
        except BaseException:
            code = 3
        os._exit(code)
    return pid


def write_locked(path: str) -> bool:
    """Whether another connection holds the database's write lock right now."""
    probe_db = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        probe_db.execute("BEGIN IMMEDIATE")
        probe_db.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        probe_db.close()


class RaceWriter:
    """A forked process with its own store, appending when told; the armed append stops before its first write.

    Each reply is one line of wire-encoded data: "paused", "win" or the
    ``Raised`` of what the append raised.
    """

    def __init__(self, open_store, submission, number: int):
        self.number = number
        orders_r, self._orders = os.pipe()
        self._replies, replies_w = os.pipe()
        self.pid = forked(lambda: self._serve(open_store, submission, orders_r, replies_w))
        os.close(orders_r)
        os.close(replies_w)
        self._buffer = b""

    def _serve(self, open_store, submission, orders, replies) -> None:
        store = open_store()
        state = {"armed": False}

        def before_statement(sql):
            if state["armed"] and sql.lstrip().split(None, 1)[:1] and \
                    sql.lstrip().split(None, 1)[0].upper() in ("INSERT", "REPLACE", "UPDATE", "DELETE"):
                state["armed"] = False
                _reply(replies, "paused")
                _read_line(orders)  # "go"

        with guard.permitted():  # the grader's own heap walk: no learner code runs in it
            connections = [o for o in gc.get_objects() if isinstance(o, sqlite3.Connection)]
        for connection in connections:
            try:
                connection.set_trace_callback(before_statement)
            except sqlite3.ProgrammingError:
                pass  # a closed connection of an earlier store
        while (order := _read_line(orders)) not in ("", "quit"):
            verb, seq = order.split()
            state["armed"] = verb == "armed"
            # Not ctx.attempt: this is another process, and a stub's NotImplementedError here is one
            # more outcome to report, as any exception is, not a reason to die before answering.
            try:
                store.append("race", int(seq), "tool.called", {"writer": self.number})
                outcome = "win"
            except Exception as exc:
                outcome = Raised.of(exc, submission)
            state["armed"] = False
            _reply(replies, outcome)

    def send(self, order: str) -> None:
        os.write(self._orders, order.encode() + b"\n")

    def ready(self, timeout: float) -> bool:
        return bool(self._buffer) or bool(select.select([self._replies], [], [], timeout)[0])

    def receive(self):
        """The writer's next reply; "the writer process died" when its pipe closed first."""
        while b"\n" not in self._buffer:
            chunk = os.read(self._replies, 4096)
            if not chunk:
                return "the writer process died"
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return wire.decode(json.loads(line))

    def stop(self) -> int:
        """Tell the writer to quit; its wait status."""
        try:
            self.send("quit")
        except OSError:
            pass
        os.close(self._orders)
        os.close(self._replies)
        return os.waitpid(self.pid, 0)[1]


def _reply(fd, value) -> None:
    """One reply of a racing writer: ``value`` wire-encoded on one line of ASCII JSON (no newline, no lone surrogate)."""
    os.write(fd, json.dumps(wire.encode(value)).encode() + b"\n")


def _read_line(fd) -> str:
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(fd, 1)
        if not chunk:
            break
        line += chunk
    return line.decode().strip()


def crash_writer(open_store, task_id, events, kill_after, start_seq=1, paced=False) -> list[int]:
    """Fork a writer appending ``events`` from ``start_seq``; SIGKILL it after ``kill_after`` acks.

    The seqs it acknowledged before it died. ``paced`` (the grader's): the
    writer waits for a go before each append, and is killed right after the go
    that follows the ``kill_after``-th acknowledgement, so the acknowledgements
    are exactly the first ``kill_after`` on every run (a grade repeats); the
    append in flight is "that event", kept or lost. Unpaced (the crash tests'
    stress): it appends without pause, the kill lands wherever it lands, and
    every acknowledgement it sent counts, ``kill_after`` or more.
    """
    read_end, write_end = os.pipe()
    go_read, go_write = os.pipe() if paced else (None, None)

    def write():
        os.close(read_end)
        if paced:
            os.close(go_write)
        store = open_store()
        for seq, (type, payload) in enumerate(events, start_seq):
            if paced and not os.read(go_read, 1):
                return
            store.append(task_id, seq, type, payload)
            os.write(write_end, f"{seq}\n".encode())  # acknowledged: append returned

    pid = forked(write)
    os.close(write_end)
    if paced:
        os.close(go_read)
    acked, buffer = [], b""
    while len(acked) < kill_after:
        if paced and not _go(go_write):
            break
        chunk = os.read(read_end, 4096)
        if not chunk:
            break
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        acked += [int(line) for line in lines]
    if paced:
        _go(go_write)  # the next append begins, and is killed wherever it is
    os.kill(pid, signal.SIGKILL)  # mid-append, most likely: an unpaced writer never waits between appends
    os.waitpid(pid, 0)
    if not paced:  # acknowledgements it sent before it died, read or not yet: each is an append that returned
        while chunk := os.read(read_end, 4096):
            buffer += chunk
        acked += [int(line) for line in buffer.split(b"\n") if line]
    else:
        os.close(go_write)
    os.close(read_end)
    return acked


def _go(go_write: int) -> bool:
    """Let a paced writer begin its next append; False when it has gone."""
    try:
        os.write(go_write, b"g")
        return True
    except BrokenPipeError:
        return False


def unique_keys(path):
    """For each table, the stored values of every two-column unique key (PRIMARY KEY or UNIQUE)."""
    db = sqlite3.connect(path)
    try:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        keys = []
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for index in db.execute(f"PRAGMA index_list('{table}')").fetchall():
                if not index[2]:  # not unique
                    continue
                # In name order: PRIMARY KEY (seq, task_id) makes the same pairs unique as (task_id, seq).
                columns = sorted(row[2] for row in db.execute(f"PRAGMA index_info('{index[1]}')").fetchall())
                if len(columns) == 2 and None not in columns:
                    rows = db.execute(f'SELECT "{columns[0]}", "{columns[1]}" FROM "{table}"').fetchall()
                    keys.append(sorted([list(row) for row in rows], key=repr))
        return {"integrity": integrity, "keys": keys}
    finally:
        db.close()
