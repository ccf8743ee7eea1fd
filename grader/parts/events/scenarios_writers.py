"""Part C's writers in other processes: two racing for each seq, one killed mid-append, run from the grading process.

A writer is another learner process of the task (``Session.sibling``) with
a store of the learner's on one database file in the task's shared folder
(``grader.sandbox.shared``). The killer is the grading side: a writer's
next append is sent and its process killed at once, wherever that append
is, and the file reopened by another process. In a race each writer reads
the grader's clock for ``time.time()`` (``Remote.lend_clock``): the armed
writer's read for the event's ts is a call here, and the rival's append is
sent from inside it, while the armed writer waits between its check and its
write. Nothing of the schedule runs in the learner's processes. Whether a
writer holds the database's lock, and what the file's schema is, the
grading side reads itself: from the kernel's locks, and from a copy.
"""

import itertools
import sqlite3
import tempfile
import time
import uuid
from pathlib import Path

from grader.engine.remote import LearnerRaised, Remote, scenario
from grader.parts.events.clock import in_order, stamp
from grader.sandbox import shared
from grader.sandbox.session import ChildFailed, LoadFailed

__all__ = ["race", "durable_crash", "BLOCKED_AFTER"]

BLOCKED_AFTER = 2.0  # a rival append that has not answered by then is waiting for a lock the grader cannot see
_DIED = "the writer process died"


class _SharedFile:
    """A database file of the task's shared folder: where the learner's processes see it, and where the grader does."""

    def __init__(self, remote: Remote, stem: str):
        folder = self.folder = remote.session.shared
        if folder is None:
            raise RuntimeError("part C's writer scenarios need the task's shared folder (Part.shared_folder)")
        # Made here, writable by every writer's uid; named at random, so the learner cannot lay a link there first.
        self.host = shared.create(folder, f"{stem}-{uuid.uuid4().hex}.db")
        self.learner = f"{remote.session.learner_shared}/{self.host.name}"

    def check_size(self) -> None:
        """The folder holds at most ``SHARED_BYTES``: more is the learner's code filling what the machine shares."""
        if shared.held_bytes(self.folder) > shared.SHARED_BYTES:
            raise ChildFailed("crashed", f"your code wrote more than {shared.SHARED_BYTES // 2**20} MB to the folder its "
                                         "processes share; a store of these events needs kilobytes")

    def write_locked(self) -> bool:
        """Whether a writer holds the database's write lock now: RESERVED (a rollback journal) or WAL's write lock."""
        return shared.lock_held(self.host, _RESERVED_BYTE) or shared.lock_held(Path(f"{self.host}-shm"), _WAL_WRITE_LOCK)

    def schema(self, limit: int) -> dict:
        """``PRAGMA integrity_check`` and, for each table, the stored values of every two-column unique key.

        Read from a copy of the file and of its WAL, so the learner can neither
        swap what is read nor see it read; the copy is opened with SQLite's
        defences for a file someone else wrote. Never a rollback journal: a
        hot one is replayed on opening, and its trailer may name a file for
        SQLite to delete. The learner's own reader has replayed it already
        (it reopened the file before this is read); one left afterwards is a
        transaction the copy does not hold.
        """
        with tempfile.TemporaryDirectory(prefix="agstate-schema-") as folder:
            copy = Path(folder) / "copy.db"
            for suffix in ("", "-wal"):
                data = shared.read(Path(f"{self.host}{suffix}"), limit)
                if data is not None:
                    Path(f"{copy}{suffix}").write_bytes(data)
                elif suffix == "":
                    return {"integrity": "the file is not a regular file the grader can read", "keys": []}
            return _schema(copy)


# SQLite's locks (sqlite3.c): RESERVED_BYTE of the database file, and the WAL index's write lock (WALINDEX_LOCK_OFFSET
# + WAL_WRITE_LOCK) in its -shm file.
_RESERVED_BYTE = 0x40000001
_WAL_WRITE_LOCK = 120


def _schema(path: Path) -> dict:
    deadline = time.monotonic() + 5.0
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA trusted_schema = OFF")  # no function of the file's own schema runs here
        db.execute("PRAGMA cell_size_check = ON")  # a page's cells are checked before they are read
        db.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)  # a file made to be slow is stopped
        try:
            integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
            keys = []
            tables = [row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'").fetchall()]
            for table in tables:
                for index in db.execute("SELECT name, \"unique\" FROM pragma_index_list(?)", (table,)).fetchall():
                    if not index[1]:
                        continue
                    # In name order: PRIMARY KEY (seq, task_id) makes the same pairs unique as (task_id, seq).
                    columns = sorted(row[0] for row in db.execute("SELECT name FROM pragma_index_info(?)", (index[0],)))
                    if len(columns) == 2 and None not in columns:
                        rows = db.execute(f"SELECT {_quoted(columns[0])}, {_quoted(columns[1])} FROM {_quoted(table)}")
                        keys.append(sorted([list(row) for row in rows.fetchall()], key=repr))
        except sqlite3.DatabaseError as exc:
            return {"integrity": f"the file is not a sound SQLite database ({exc})", "keys": []}
        return {"integrity": integrity, "keys": keys}
    finally:
        db.close()


def _quoted(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _died(exc: ChildFailed | LoadFailed) -> str:
    """``_DIED``, for a writer whose process crashed or could not import the module again; a time-out, or the
    grader's own failure, is raised on: never a writer's outcome."""
    if isinstance(exc, ChildFailed) and exc.status != "crashed":
        raise exc
    return _DIED


def _outcome(call):
    """A racing writer's append: "win", the ``Raised`` of what it raised, or ``_DIED``."""
    try:
        call()
        return "win"
    except LearnerRaised as exc:
        return exc.raised
    except (ChildFailed, LoadFailed) as exc:
        return _died(exc)


class _Clock:
    """A writer's ``time.time()``, lent: each read is a call here, counted; the armed writer's next read first lets the
    rival append (``gate``). Every writer reads the grader's time, one tick per read (the ts stay distinct)."""

    def __init__(self, ticks):
        self.ticks = ticks  # shared by the race's writers
        self.reads = 0
        self.gate = None

    def __call__(self) -> float:
        self.reads += 1
        gate, self.gate = self.gate, None
        if gate is not None:
            gate()
        return stamp(next(self.ticks))


@scenario
def race(remote: Remote, rounds):
    """Two writers, each another learner process with its own store on one file, race for seqs 1..``rounds``.

    Each writer's module reads a clock of the grader's for ``time.time()``.
    For each seq one writer (taking turns) is *armed*: when its append reads
    the clock for the event's ts — its check done, the event about to be
    written — the other writer appends the same seq, unless the armed one
    holds the database's write lock then (a transaction such as BEGIN
    IMMEDIATE: the other comes after), or its append has not answered after
    ``BLOCKED_AFTER`` seconds (a lock of another kind). First, one writer
    appends a seq the other then appends again with another payload: a
    refused append that read the clock read it before its check
    (``refused``), and its race would be no race. Returns, per seq, what
    each writer's append did: "win", the ``Raised`` of what it raised, or
    "the writer process died".
    """
    file = _SharedFile(remote, "race")
    for number in (0, 1):  # the writers' processes made meanwhile: they touch the file only when asked for a store
        remote.session.sibling(number).prestart()
    made = remote.ask("events_store", file.learner)
    remote.ask("events_call", made, "list", ["race"])  # the schema exists before the writers start
    remote.release(made)
    ticks = itertools.count(1)
    writers, clocks = [remote.sibling(number) for number in (0, 1)], [_Clock(ticks), _Clock(ticks)]
    rounds_seen = []
    try:
        for writer, clock in zip(writers, clocks):
            writer.lend_clock(clock)
        stores = [writer.ask("events_store", file.learner) for writer in writers]
        refused = _refused(writers, stores, clocks)
        for seq in range(1, rounds + 1):
            rounds_seen.append(_race_round(file, writers, stores, clocks, seq))
            if _DIED in rounds_seen[-1]["outcomes"].values():
                break  # the rule fails on this round; its store died with it
        codes = [0 if writer.live() else 1 for writer in writers]  # a writer that died on its own ended abnormally
    finally:
        remote.session.close_siblings()  # the writers end with the race (a uid each while they run)
    file.check_size()
    listed = remote.ask("events_store", file.learner)
    try:
        return in_order({"refused": refused, "rounds": rounds_seen, "codes": codes,
                         "events": remote.ask("events_call", listed, "list", ["race"])})
    finally:
        remote.release(listed)


def _refused(writers: list[Remote], stores: list, clocks: list[_Clock]) -> dict:
    """Writer 0 appends seq 1 of task "refused", then writer 1 appends it again with another payload, in turn: what the
    second append did and how often it read the clock."""
    first = _outcome(lambda: writers[0].ask("events_call", stores[0], "append", ["refused", 1, "agent.started", {"writer": 0}]))
    before = clocks[1].reads
    second = _outcome(lambda: writers[1].ask("events_call", stores[1], "append", ["refused", 1, "agent.started", {"writer": 1}]))
    return {"first": first, "second": second, "clock_reads": clocks[1].reads - before}


def _race_round(file: _SharedFile, writers: list[Remote], stores: list, clocks: list[_Clock], seq: int) -> dict:
    """One seq raced: the armed writer (taking turns) stopped as it reads the clock, the other appending meanwhile."""
    armed, other = (seq - 1) % 2, seq % 2
    appends = [["race", seq, "tool.called", {"writer": number}] for number in (0, 1)]
    seen = {"paused": False, "locked": False, "interleaved": False, "sent": False}
    outcomes = {}

    def paused():
        seen["paused"] = True
        seen["locked"] = file.write_locked()
        if seen["locked"]:
            return  # the rival would only wait for the lock: it appends once the armed writer is done
        try:
            writers[other].start("events_call", stores[other], "append", appends[other])
            seen["sent"] = True
            seen["interleaved"] = writers[other].ready(BLOCKED_AFTER)
        except (ChildFailed, LoadFailed) as exc:
            outcomes[other] = _died(exc)

    clocks[armed].gate = paused
    try:
        outcomes[armed] = _outcome(lambda: writers[armed].ask("events_call", stores[armed], "append", appends[armed]))
    finally:
        clocks[armed].gate = None  # an append that never read the clock was never raced
    if other not in outcomes:
        outcomes[other] = _outcome((lambda: writers[other].finish("events_call")) if seen["sent"] else
                                   (lambda: writers[other].ask("events_call", stores[other], "append", appends[other])))
    return {"seq": seq, "armed": armed, "paused": seen["paused"], "locked": seen["locked"],
            "interleaved": seen["interleaved"], "outcomes": {str(armed): outcomes[armed], str(other): outcomes[other]}}


@scenario
def durable_crash(remote: Remote, rounds):
    """Kill a writer mid-append once per round (``[events, kill_after]``); after each, reopen the file and read.

    The writer, another learner process, appends ``events`` one at a time
    from the next free seq; once it has acknowledged ``kill_after`` of them
    (its append returned), its next append is sent and its process killed
    at once, wherever that append is: kept or lost, it is "that event".
    The file is then reopened in this task's own learner process.
    """
    file = _SharedFile(remote, "durable")
    found = []
    for events, kill_after in rounds:
        reader = remote.ask("events_store", file.learner)
        start = remote.ask("events_call", reader, "last_seq", ["durable"]) + 1
        remote.release(reader)
        acked, stopped = _write_until_killed(remote.sibling(0), file, events, kill_after, start)
        file.check_size()
        reopened = remote.ask("events_store", file.learner)  # another process than the writer's
        found.append({"start": start, "acked": acked, "stopped": stopped,
                      "events": remote.ask("events_call", reopened, "list", ["durable"])})
        remote.release(reopened)
    return in_order({"rounds": found, "schema": file.schema(remote.session.limits.file_bytes)})


def _write_until_killed(writer: Remote, file: _SharedFile, events, kill_after: int, start: int) -> tuple[list[int], object]:
    """The seqs the writer acknowledged before it was killed, and why it stopped before ``kill_after`` of them: the
    ``Raised`` of what its store raised, ``_DIED``, or None (it was killed where the round said)."""
    acked, stopped = [], None
    try:
        store = writer.ask("events_store", file.learner)
        for seq, (kind, payload) in enumerate(events, start):
            if len(acked) == kill_after:
                writer.start("events_call", store, "append", ["durable", seq, kind, payload])
                break
            writer.ask("events_call", store, "append", ["durable", seq, kind, payload])
            acked.append(seq)
    except LearnerRaised as exc:
        if exc.raised.is_a("NotImplementedError"):  # a stub: the task's verdict, not this round's
            raise
        stopped = exc.raised
    except (ChildFailed, LoadFailed) as exc:
        stopped = _died(exc)
    finally:
        writer.session.close()  # SIGKILL, wherever its append is
    return acked, stopped
