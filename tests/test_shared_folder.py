"""A task's shared folder: the one place a sandbox writes that outlives it, and what the grading side trusts of it.

Part C's writers (grader.parts.events.writers) share a database file in it.
The learner's code may leave anything there: a link to a file of the
grader's, a FIFO, a huge file, a folder it made unreadable. The grading side
reads only regular files it opens without following a link, learns of locks
from the kernel, and removes the folder with whatever is in it, never what
a link points to.
"""

import json
import multiprocessing
import os
import sqlite3

import pytest
from support.cli import run_cli
from support.paths import SOLUTIONS

from grader.sandbox import shared

LEAK = "AGSTATE-SHARED-LEAK"


# -- the folder's own functions --------------------------------------------------------------------
@pytest.mark.unit
def test_read_takes_regular_files_only_never_through_a_link(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text(LEAK)
    (tmp_path / "link").symlink_to(secret)
    os.mkfifo(tmp_path / "fifo")  # opened without blocking, then refused
    (tmp_path / "big").write_bytes(b"x" * 101)
    (tmp_path / "fine").write_bytes(b"x" * 100)
    assert shared.read(tmp_path / "link", 1000) is None
    assert shared.read(tmp_path / "fifo", 1000) is None
    assert shared.read(tmp_path / "big", 100) is None
    assert shared.read(tmp_path / "fine", 100) == b"x" * 100
    assert shared.read(tmp_path / "absent", 100) is None


@pytest.mark.unit
def test_create_refuses_a_name_a_link_already_holds(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "planted.db").symlink_to(victim)
    with pytest.raises(FileExistsError):
        shared.create(tmp_path, "planted.db")
    made = shared.create(tmp_path, "fresh.db")
    assert made.stat().st_mode & 0o777 == 0o666 and made.read_bytes() == b""
    assert victim.read_text() == "keep"


def _hold_write_lock(path: str, wal: bool, held, release) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS t (x)")
    db.execute("BEGIN IMMEDIATE")
    held.set()
    release.wait(10)
    db.execute("ROLLBACK")


@pytest.mark.unit
@pytest.mark.parametrize("wal", [True, False], ids=["wal", "rollback journal"])
def test_lock_held_sees_another_process_holding_the_write_lock(tmp_path, wal):
    path = tmp_path / "events.db"
    held, release = multiprocessing.Event(), multiprocessing.Event()
    writer = multiprocessing.Process(target=_hold_write_lock, args=(str(path), wal, held, release))
    writer.start()
    try:
        assert held.wait(10)
        locked = shared.lock_held(path, 0x40000001) or shared.lock_held(tmp_path / "events.db-shm", 120)
    finally:
        release.set()
        writer.join(10)
    assert locked
    assert not (shared.lock_held(path, 0x40000001) or shared.lock_held(tmp_path / "events.db-shm", 120))


@pytest.mark.unit
def test_the_folder_goes_with_what_the_learner_left_but_never_what_a_link_names(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("keep")
    with shared.shared_folder() as folder:
        root = folder.parent
        (folder / "link").symlink_to(victim)
        (folder / "closed" / "inner").mkdir(parents=True)
        (folder / "closed" / "inner" / "file").write_text("x")
        (folder / "closed").chmod(0)
        assert oct(root.stat().st_mode & 0o777) == oct(0o700)
    assert not root.exists()
    assert (victim / "keep").read_text() == "keep"


# -- a submission that plants links in it ---------------------------------------------------------------
_PLANTING = '''

import os as _os

_listing = SqliteEventStore.list


def _planting_list(self, task_id, from_seq=1):
    """The reference's list, then: the store's file becomes a link to the grader's secret, and a link to its folder."""
    found = _listing(self, task_id, from_seq)
    folder = _os.path.dirname(self.path)
    if task_id == "durable" and _os.path.basename(folder) == "shared":
        for name in _os.listdir(folder):
            path = _os.path.join(folder, name)
            if name.endswith(".db") and not _os.path.islink(path):
                _os.replace(path, path + ".moved")
                _os.symlink(@SECRET@, path)
        if not _os.path.lexists(_os.path.join(folder, "victim")):
            _os.symlink(@VICTIM@, _os.path.join(folder, "victim"))
    return found


SqliteEventStore.list = _planting_list
'''


@pytest.mark.part
def test_links_planted_in_the_shared_folder_are_never_followed(tmp_path):
    """The learner's reader swaps the database for a link to a grader's file and links the grader's folder in: the
    schema rule reads no file but a regular one (it fails, saying so), nothing leaks, nothing outside is removed."""
    secret = tmp_path / "grader-secret.db"
    db = sqlite3.connect(secret)
    db.execute(f"CREATE TABLE {LEAK.replace('-', '_')} (task_id TEXT, seq INTEGER, PRIMARY KEY (task_id, seq))")
    db.execute("INSERT INTO " + LEAK.replace("-", "_") + " VALUES ('durable', 1), ('durable', 2), ('durable', 3)")
    db.commit()
    db.close()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("keep")
    submission = tmp_path / "planting"
    (submission / "agstate").mkdir(parents=True)
    for source in (SOLUTIONS / "agstate").glob("*.py"):
        (submission / "agstate" / source.name).write_text(source.read_text())
    module = submission / "agstate" / "events.py"
    module.write_text(module.read_text() + _PLANTING.replace("@SECRET@", repr(str(secret)))
                      .replace("@VICTIM@", repr(str(victim))))
    report = json.loads(run_cli(str(submission), "--task", "events.durable", "--seed", "5", "--json").stdout)
    task = report["tasks"][0]
    rules = {rule["rule"].split(" ")[0]: rule for rule in task["rules"]}
    schema = next(rule for rule in task["rules"] if "unique in the schema" in rule["rule"])
    assert schema["status"] == "failed" and "not a regular file" in schema["feedback"], rules
    assert LEAK not in json.dumps(report) and LEAK.replace("-", "_") not in json.dumps(report)
    assert (victim / "keep").read_text() == "keep" and secret.exists()
