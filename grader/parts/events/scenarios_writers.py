"""Part C's writers in other processes, run from the grading process: one killed mid-append (here), two racing for
each seq (``scenarios_race``), on one file of the task's shared folder.

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

import sqlite3
import tempfile
import time
import uuid
from pathlib import Path

from grader.engine.handles import LearnerRaised, Raised
from grader.engine.remote import Remote, scenario
from grader.i18n import N_, _
from grader.parts.events.clock import in_order
from grader.parts.events.scenarios_store import answer, new_store, request, store_call
from grader.sandbox import shared
from grader.sandbox.session import ChildFailed, LoadFailed

__all__ = ["durable_crash", "SharedFile", "BLOCKED_AFTER", "DIED", "died", "outcome", "settled"]

BLOCKED_AFTER = 2.0  # a rival append that has not answered by then is waiting for a lock the grader cannot see
DIED = N_("the writer process died")  # a value compared; translated where shown (checks._said)


class SharedFile:
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
            raise ChildFailed("crashed", _("your code wrote more than {megabytes} MB to the folder its processes share; a "
                                           "store of these events needs kilobytes").format(megabytes=shared.SHARED_BYTES // 2**20))

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
                    return {"integrity": _("the file is not a regular file the grader can read"), "keys": []}
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
            return {"integrity": _("the file is not a sound SQLite database ({error})").format(error=exc), "keys": []}
        return {"integrity": integrity, "keys": keys}
    finally:
        db.close()


def _quoted(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def died(exc: ChildFailed | LoadFailed) -> str:
    """``DIED``, for a writer whose process crashed or could not import the module again; a time-out, or the
    grader's own failure, is raised on: never a writer's outcome."""
    if isinstance(exc, ChildFailed) and exc.status != "crashed":
        raise exc
    return DIED


def settled(reply):
    """A started append's answer, what the learner's store raised raised here as ``LearnerRaised``."""
    got = answer(reply)
    if isinstance(got, Raised):
        raise LearnerRaised(got)
    return got


def outcome(call):
    """A racing writer's append: "win", the ``Raised`` of what it raised, or ``DIED``."""
    try:
        call()
        return "win"
    except LearnerRaised as exc:
        return exc.raised
    except (ChildFailed, LoadFailed) as exc:
        return died(exc)


@scenario
def durable_crash(remote: Remote, rounds):
    """Kill a writer mid-append once per round (``[events, kill_after]``); after each, reopen the file and read.

    The writer, another learner process, appends ``events`` one at a time
    from the next free seq; once it has acknowledged ``kill_after`` of them
    (its append returned), its next append is sent and its process killed
    at once, wherever that append is: kept or lost, it is "that event".
    The file is then reopened in this task's own learner process.
    """
    file = SharedFile(remote, "durable")
    found = []
    for events, kill_after in rounds:
        reader = new_store(remote, file.learner)
        start = store_call(remote, reader, "last_seq", "durable") + 1
        remote.release(reader)
        acked, stopped = _write_until_killed(remote.sibling(0), file, events, kill_after, start)
        file.check_size()
        reopened = new_store(remote, file.learner)  # another process than the writer's
        found.append({"start": start, "acked": acked, "stopped": stopped,
                      "events": store_call(remote, reopened, "list", "durable")})
        remote.release(reopened)
    return in_order({"rounds": found, "schema": file.schema(remote.session.limits.file_bytes)})


def _write_until_killed(writer: Remote, file: SharedFile, events, kill_after: int, start: int) -> tuple[list[int], object]:
    """The seqs the writer acknowledged before it was killed, and why it stopped before ``kill_after`` of them: the
    ``Raised`` of what its store raised, ``DIED``, or None (it was killed where the round said)."""
    acked, stopped = [], None
    try:
        store = new_store(writer, file.learner)
        for seq, (kind, payload) in enumerate(events, start):
            if len(acked) == kill_after:
                name, arguments = request(store, "append", "durable", seq, kind, payload)
                writer.start(name, *arguments)
                break
            store_call(writer, store, "append", "durable", seq, kind, payload)
            acked.append(seq)
    except LearnerRaised as exc:
        if exc.raised.is_a("NotImplementedError"):  # a stub: the task's verdict, not this round's
            raise
        stopped = exc.raised
    except (ChildFailed, LoadFailed) as exc:
        stopped = died(exc)
    finally:
        writer.session.close()  # SIGKILL, wherever its append is
    return acked, stopped
