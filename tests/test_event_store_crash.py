"""Crash tests: a writer process killed with SIGKILL mid-append, many times; reopening loses no acknowledged event.

The writer is forked and appends without pause, acknowledging each append
after it returns; it is killed right after its k-th acknowledgement, so most
kills land inside the next append. After every kill a new connection reads
the log: every acknowledged event is there, unchanged and in order, at most
the one in flight was added, and nothing earlier changed.
"""

import random
import sqlite3

import pytest
from support.event_stores import crash_writer, postgres_opener, reference, sqlite_file_opener
from support.postgres_server import postgres_url  # noqa: F401  (fixture)

pytestmark = pytest.mark.unit

KILLS = 40


def intended(seq: int) -> tuple[str, dict]:
    """What the writer appends at ``seq``: the same every time, so a torn or mixed event shows."""
    return reference.EVENT_TYPES[seq % 5], {"seq": seq, "text": "é" * (seq % 7), "blob": "x" * (seq * 37 % 3000)}


def kill_many_times(open_store, rng: random.Random, kills: int = KILLS) -> int:
    task, before = "invoice-crash", []
    for kill in range(kills):
        start = len(before) + 1
        count = rng.randint(1, 30)
        acked = crash_writer(open_store, task, [intended(seq) for seq in range(start, start + count)],
                             kill_after=rng.randint(0, count), start_seq=start)
        events = open_store().list(task)
        context = f"kill #{kill}: writer from seq {start}, acknowledged {acked}"
        assert events[: len(before)] == before, "events stored before the kill changed; " + context
        new = events[len(before):]
        assert len(acked) <= len(new) <= len(acked) + 1, f"{len(new)} new events; " + context
        assert [(e.seq, e.type, e.payload) for e in new] == [(seq, *intended(seq)) for seq in range(start, start + len(new))], context
        before = events
    return len(before)


def test_sqlite_file_survives_sigkill_mid_append(tmp_path):
    open_store = sqlite_file_opener(tmp_path)
    stored = kill_many_times(open_store, random.Random(1))
    assert stored > KILLS  # the writers got real work done between the kills
    (path,) = tmp_path.glob("events-*.db")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.slow
def test_postgres_survives_sigkill_mid_append(postgres_url):  # noqa: F811
    assert kill_many_times(postgres_opener(postgres_url), random.Random(2)) > KILLS


@pytest.mark.parametrize("kill_after", [0, 1, 5])
def test_a_killed_writer_leaves_a_store_others_can_append_to(tmp_path, kill_after):
    open_store = sqlite_file_opener(tmp_path)
    acked = crash_writer(open_store, "t", [intended(seq) for seq in range(1, 9)], kill_after)
    store = open_store()
    last = store.last_seq("t")
    assert last >= len(acked)
    assert store.append("t", last + 1, "agent.crashed", {"reason": "writer killed"}).seq == last + 1
