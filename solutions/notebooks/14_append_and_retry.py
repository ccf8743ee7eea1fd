# ---
# jupyter:
#   agstate:
#     part: events
#     pitfall: "an autoincrement log duplicates a retry; `INSERT OR IGNORE` silently drops a conflicting event; check-then-insert gives two events one seq; a writer killed with SIGKILL"
#     exercise: "`SqliteEventStore`"
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 14 — Append, idempotent retry, and `ConcurrencyError`
#
# **Goal:** write the event store: an append-only log where event `seq` of a
# task is written once, a retry of the same event is harmless, and a
# conflicting write is refused loudly — also when two processes race, and
# also when the writing process is killed.
#
# Each event is `(task_id, seq, type, payload, ts)`: the `seq`-th thing that
# happened to the task, numbered 1, 2, 3… with no gaps. The writer chooses
# `seq` (it is "the next event I expect to write"); the store decides whether
# that is still true.

# %% [markdown]
# ## Three ways a log goes wrong
#
# ### 1. An autoincrement id: a retry is a second event
#
# The writer appends, the reply is lost (a timeout, a dropped connection),
# the writer retries. With a plain `INSERT` and an autoincrement id, the
# store cannot tell a retry from a new event.

# %%
import sqlite3

naive = sqlite3.connect(":memory:")
naive.execute("CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT, type TEXT, payload TEXT)")


def naive_append(task_id, type, payload):
    naive.execute("INSERT INTO events (task_id, type, payload) VALUES (?, ?, ?)", (task_id, type, payload))


naive_append("bill-7", "tool.called", '{"call_id": "3:send_invoice"}')
naive_append("bill-7", "tool.called", '{"call_id": "3:send_invoice"}')  # the retry after a lost reply
rows = naive.execute("SELECT id, type, payload FROM events").fetchall()
print(rows)
assert len(rows) == 2

# %% [markdown]
# ### 2. `ON CONFLICT DO NOTHING`: a lost write that looks stored
#
# Numbering events and making `(task_id, seq)` the primary key fixes the
# retry. The tempting next line, `INSERT OR IGNORE` (PostgreSQL:
# `ON CONFLICT DO NOTHING`), also silences a *different* event written at a
# taken seq: the second writer believes its event is stored.

# %%
ignoring = sqlite3.connect(":memory:")
ignoring.execute("CREATE TABLE events (task_id TEXT, seq INTEGER, type TEXT, payload TEXT, PRIMARY KEY (task_id, seq))")


def ignoring_append(task_id, seq, type, payload):
    ignoring.execute("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?)", (task_id, seq, type, payload))
    return "stored"  # ...or so the writer thinks


print(ignoring_append("bill-7", 2, "tool.result", '{"result": "INV-0001"}'))
print(ignoring_append("bill-7", 2, "agent.crashed", '{"reason": "timeout"}'))  # another writer, same seq
rows = ignoring.execute("SELECT seq, type FROM events").fetchall()
print(rows)
assert rows == [(2, "tool.result")]  # the crash report vanished without an error

# %% [markdown]
# ### 3. Check, then insert: two writers both see the same free seq
#
# A store that reads `last_seq`, then inserts `last_seq + 1`, in two
# statements, lets another process slip in between. Here the interleaving is
# forced, step by step, with two connections to one file.

# %%
import os
import tempfile

scratch = tempfile.TemporaryDirectory(prefix="agstate-14-")  # removed when the kernel exits
path = os.path.join(scratch.name, "racy.db")
a, b = sqlite3.connect(path, isolation_level=None), sqlite3.connect(path, isolation_level=None)
a.execute("CREATE TABLE events (task_id TEXT, seq INTEGER, type TEXT)")  # and no primary key
a.execute("INSERT INTO events VALUES ('bill-7', 1, 'agent.started')")


def last_seq(db):
    return db.execute("SELECT MAX(seq) FROM events WHERE task_id = 'bill-7'").fetchone()[0]


seen_by_a, seen_by_b = last_seq(a), last_seq(b)  # both read before either writes
a.execute("INSERT INTO events VALUES ('bill-7', ?, 'tool.called')", (seen_by_a + 1,))
b.execute("INSERT INTO events VALUES ('bill-7', ?, 'agent.crashed')", (seen_by_b + 1,))
rows = a.execute("SELECT seq, type FROM events ORDER BY seq").fetchall()
print(rows)
assert rows == [(1, "agent.started"), (2, "tool.called"), (2, "agent.crashed")]  # two events claim seq 2

# %% [markdown]
# ## Predict first
#
# The fix makes the read and the write one step for every process: in
# SQLite, `BEGIN IMMEDIATE` takes the database's write lock *before* the
# read. Replay the interleaving above with both connections starting with
# `BEGIN IMMEDIATE`. What happens to `b`?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# `b`'s `BEGIN IMMEDIATE` waits (up to its busy timeout) until `a` commits,
# then `b` reads `last_seq` = 2 and its writer learns seq 2 is taken: it
# gets a conflict instead of a duplicate. With a zero timeout, `b` fails at
# once with "database is locked".
# ### END SOLUTION

# %%
a, b = sqlite3.connect(path, isolation_level=None), sqlite3.connect(path, isolation_level=None, timeout=0)
a.execute("BEGIN IMMEDIATE")
try:
    b.execute("BEGIN IMMEDIATE")
except sqlite3.OperationalError as exc:
    print("b:", exc)
    locked_out = str(exc)
a.execute("COMMIT")
b.execute("BEGIN IMMEDIATE")  # now b gets the lock, and reads what a wrote
b.execute("COMMIT")
assert locked_out == "database is locked"

# %% [markdown]
# ## The store's rules
#
# `agstate/events.py` gives you `Event`, `EventStoreError`,
# `ConcurrencyError(task_id, expected, actual)`, the abstract `EventStore`
# and `check_new_event(task_id, seq, type, payload)`, which validates an
# event and returns its payload as canonical JSON text (keys sorted). You
# write `SqliteEventStore`:
#
# | call | result |
# |---|---|
# | unknown type, seq not an int >= 1, payload not a JSON object | `EventStoreError`, nothing written |
# | `seq == last_seq + 1` | stored, `ts` = `time.time()` read once the seq is known to be free, the event returned |
# | a taken seq, same type and payload | the *stored* event (its `ts`), nothing written |
# | a taken seq, other content | `ConcurrencyError`, nothing written |
# | `seq > last_seq + 1` (a gap) | `ConcurrencyError`, nothing written |
#
# `ts` is never part of the comparison: a retry is made later than the
# original, so its clock always differs. A refused or retried append reads
# no clock: `time.time()` is read for the event being written, after the
# checks. `expected` is the next free seq, `actual` the one sent.
#
# This cell needs your `SqliteEventStore`.

# %%
from agstate.events import ConcurrencyError, EventStoreError, SqliteEventStore

store = SqliteEventStore()
first = store.append("bill-7", 1, "agent.started", {"input": {"customer": "ACME", "amount": 120}})
retry = store.append("bill-7", 1, "agent.started", {"input": {"amount": 120, "customer": "ACME"}})  # keys reordered
print(first)
assert retry == first and store.list("bill-7") == [first]

try:
    store.append("bill-7", 1, "agent.crashed", {"reason": "timeout"})
except ConcurrencyError as exc:
    print("conflict:", exc, "| expected", exc.expected, "actual", exc.actual)
    conflict = exc
assert (conflict.expected, conflict.actual) == (2, 1)

try:
    store.append("bill-7", 5, "tool.called", {})
except ConcurrencyError as exc:
    print("gap:", exc)
for bad in [(0, "agent.started", {}), (2, "tool.exploded", {}), (2, "tool.called", ["not", "an", "object"])]:
    try:
        store.append("bill-7", *bad)
    except EventStoreError as exc:
        print("refused:", exc)
assert store.last_seq("bill-7") == 1 and store.last_seq("nobody") == 0

# %% [markdown]
# ### Racing writers
#
# Four threads, each with its own connection to one file, all try to append
# seqs 1 to 5. Exactly one wins each seq; the others get `ConcurrencyError`
# and, in a real agent, would re-read the log before deciding what to do.

# %%
import threading

path = os.path.join(scratch.name, "race.db")
SqliteEventStore(path)  # creates the schema once
wins = {seq: [] for seq in range(1, 6)}
start = threading.Barrier(4)


def writer(number):
    mine = SqliteEventStore(path)
    start.wait()
    for seq in wins:
        try:
            mine.append("race", seq, "tool.called", {"writer": number})
            wins[seq].append(number)
        except ConcurrencyError:
            pass


threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(wins)
assert all(len(winners) == 1 for winners in wins.values())
assert [e.payload["writer"] for e in SqliteEventStore(path).list("race")] == [w[0] for w in wins.values()]

# %% [markdown]
# ### A writer killed mid-append
#
# Durable means: once `append` returns, the event survives the process.
# Here a separate Python process appends as fast as it can and prints each
# acknowledged seq; we kill it with `SIGKILL` (no cleanup, no `finally`)
# and reopen the file. Every acknowledged event is there; at most the one
# in flight was lost or added; nothing is corrupt.

# %%
import signal
import subprocess
import sys
import time

import agstate

workspace = os.path.dirname(os.path.dirname(agstate.__file__))
path = os.path.join(scratch.name, "killed.db")
SqliteEventStore(path).list("killed")  # the table exists before the writer starts (and an unwritten store says so here)
writer_code = f"""
import sys
from agstate.events import SqliteEventStore
store = SqliteEventStore({path!r})
for seq in range(1, 100_000):
    store.append("killed", seq, "tool.result", {{"result": seq}})
    print(seq, flush=True)
"""
process = subprocess.Popen([sys.executable, "-c", writer_code], stdout=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONPATH": workspace})
acked = [int(process.stdout.readline()) for _ in range(200)]
process.send_signal(signal.SIGKILL)
process.wait()
events = SqliteEventStore(path).list("killed")
print(f"acknowledged {len(acked)} (at least), found {len(events)} after the kill")
assert [e.seq for e in events] == list(range(1, len(events) + 1))
assert len(events) >= len(acked)
assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"

# %% [markdown]
# ### The same contract on PostgreSQL
#
# `PostgresEventStore(dsn)` is provided, built on psycopg 3, with the same
# rules (a per-task advisory lock plays `BEGIN IMMEDIATE`'s part), and
# `open_store(url)` picks the backend from a URL. The lab's own test suite
# (in its repository) runs one contract suite on SQLite in memory, SQLite on
# a file and a real PostgreSQL server. If you have a server, set
# `AGSTATE_EVENTS_URL=postgresql://user@host:port/db` before starting the lab
# and this cell uses it; without it, it uses SQLite.

# %%
from agstate.events import open_store

shared = open_store()  # $AGSTATE_EVENTS_URL, else SQLite in memory
task = f"contract-{time.time_ns()}"
stored = shared.append(task, 1, "agent.started", {"input": "same rules"})
assert shared.append(task, 1, "agent.started", {"input": "same rules"}) == stored
print(type(shared).__name__, shared.list(task))

# %% [markdown]
# ## Your exercise
#
# In `agstate/events.py`, write `SqliteEventStore`:
#
# 1. **`__init__(path=":memory:")`** — create the table with
#    `PRIMARY KEY (task_id, seq)`: uniqueness in the schema itself. A hint
#    for the connection: `isolation_level=None` lets you write `BEGIN` and
#    `COMMIT` yourself.
# 2. **`append`** — validate with `check_new_event` *first*; then, inside
#    `BEGIN IMMEDIATE` … `COMMIT`: read the row at `seq` and the last seq,
#    and store, return the stored event, or raise, as the table above says.
#    Take `ts` from `time.time()` only then, for the event you insert. Roll
#    back on every exit that does not commit.
# 3. **`list(task_id, from_seq=1)`** and **`last_seq(task_id)`**.
#
# The grader runs random logs on fresh stores (in memory and on files),
# retries with reordered payloads, conflicts and gaps, writers in separate
# processes racing for the same seqs, and writers killed with `SIGKILL`.
#
# ### Threads and processes
#
# The grader calls each store from one thread at a time. Writers that race
# do so from separate processes, each with its own `SqliteEventStore` on the
# same file: the database's write lock (`BEGIN IMMEDIATE`) keeps them apart.
# The grader makes the race happen on every run: it lends each writer's
# module its own clock, and while one writer's append reads `time.time()`
# for its event — its check done, its insert still to come — the other
# writer appends the same seq. A store whose check and insert are one
# transaction makes the rival wait; one that checks, then inserts, meets the
# rival's event at its insert. An append that reads the clock before its
# check could not be raced at all, so the grader refuses that too.
#
# A store you share between threads yourself needs a lock of its own
# (`threading.Lock`) around each transaction, because one connection runs
# one transaction at a time — as this cell shows:

# %%
import sqlite3

shared = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
shared.execute("BEGIN IMMEDIATE")  # one thread's append has begun on the shared connection...
try:
    shared.execute("BEGIN IMMEDIATE")  # ...and another thread's append begins on it too
except sqlite3.OperationalError as error:
    print("OperationalError:", error)
    assert "within a transaction" in str(error)
shared.execute("ROLLBACK")

# %%
from grader import check

check("events.append")

# %%
check("events.idempotent")

# %%
check("events.concurrency")

# %%
check("events.durable")

# %% [markdown]
# ## What to remember
#
# - Number events per task; let the store check the number. A retry of the
#   same event returns the stored one; different content is a conflict,
#   never silently ignored.
# - Read and write in one transaction that locks out other writers.
# - Uniqueness belongs in the schema; durability means "committed before
#   `append` returns".
# - Next: **15 — projection and replay**: the task's state, computed from
#   its events.
