"""Part C's stand-ins, child side: the fake tools of a run, its ledger of side effects, and the grader's own stores.

The resume and graph probes (``probes``) judge ``call_tool``, ``run_task``
and ``build_invoice_graph``, not the learner's store: they run on
``TrustedStore``, with tools that record every side effect in a ``Ledger``
file a SIGKILL cannot tear, and crash where the example says (a tool raising
``ToolTimeout``, the process killed inside a tool or right after an append).
Like the probes, nothing here imports the grading side.
"""

import json
import os
import shutil
import signal
import sqlite3

from grader.child import guard
from grader.parts.events.clock import stamp

__all__ = ["Ledger", "ToolTimeout", "TrustedStore", "fake_tool", "killing_store", "remove_scratch"]


def remove_scratch(folder: str) -> None:
    """A probe's temp dir, removed with what the grader keeps there (its ledger, its store: see ``guard.protect``)."""
    with guard.permitted():
        shutil.rmtree(folder, ignore_errors=True)


class Ledger:
    """Side effects, one JSON line each, written with O_APPEND: a SIGKILL never loses a written line."""

    def __init__(self, folder):
        self.path = os.path.join(folder, "ledger.jsonl")
        guard.protect(self.path)  # the learner's code may not rewrite the evidence of its side effects
        self.phase = 0
        self.executions = 0  # tool executions in this process (a forked run counts its own)

    def record(self, **fields):
        with guard.permitted():
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (json.dumps({"phase": self.phase, **fields}) + "\n").encode())
        finally:
            os.close(fd)

    def read(self):
        if not os.path.exists(self.path):
            return []
        with guard.permitted(), open(self.path) as handle:
            return [json.loads(line) for line in handle if line.strip()]


class ToolTimeout(Exception):
    """The fake tool's transient failure (a timeout)."""


def fake_tool(ledger, name, params, answer, crash):
    """A fake tool ``name(**params)`` recording its side effect; ``crash`` = [mode, execution number] or None."""
    def run(**kwargs):
        ledger.executions += 1
        if crash and ledger.phase == 1 and ledger.executions == crash[1]:
            if crash[0] == "raise":
                raise ToolTimeout(f"{name} timed out")
            if crash[0] == "die_in_tool":
                ledger.record(tool=name, args={k: v for k, v in kwargs.items() if k != "idempotency_key"},
                              key=kwargs.get("idempotency_key"))
                os.kill(os.getpid(), signal.SIGKILL)  # the effect happened; its result is never logged
        ledger.record(tool=name, args={k: v for k, v in kwargs.items() if k != "idempotency_key"},
                      key=kwargs.get("idempotency_key"))
        return answer(kwargs)

    # A real signature: call_tool must see whether the tool takes idempotency_key.
    names = [param.split("=")[0] for param in params]
    source = f"def {name}({', '.join(params)}): return run(**{{{', '.join(f'{p!r}: {p}' for p in names)}}})"
    scope = {"run": run}
    exec(source, scope)
    return scope[name]


class TrustedStore:
    """The grader's own SQLite store: resume and graph tasks judge call_tool and run_task, not the learner's store.

    It keeps the store's rules (retries return the stored event; conflicts and
    gaps raise the learner's ConcurrencyError) and builds the learner's ``Event``s.
    """

    def __init__(self, ctx, path):
        self.ctx = ctx
        guard.protect(path)
        with guard.permitted():
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS events (task_id TEXT, seq INTEGER, type TEXT, payload TEXT, ts REAL, "
                        "PRIMARY KEY (task_id, seq))")

    def _event(self, row):
        return self.ctx.get("Event")(task_id=row[0], seq=row[1], type=row[2], payload=json.loads(row[3]), ts=row[4])

    def append(self, task_id, seq, type, payload):
        body = json.dumps(payload, sort_keys=True)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            row = self.db.execute("SELECT * FROM events WHERE task_id = ? AND seq = ?", (task_id, seq)).fetchone()
            last = self.last_seq(task_id)
            if row is not None and (row[2], row[3]) == (type, body):
                return self._event(row)
            if row is not None or seq != last + 1:
                raise self.ctx.get("ConcurrencyError")(task_id, last + 1, seq)
            row = (task_id, seq, type, body, stamp(seq))  # not the wall clock: a report repeats
            self.db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?)", row)
            self.db.execute("COMMIT")
            return self._event(row)
        finally:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")

    def list(self, task_id, from_seq=1):
        rows = self.db.execute("SELECT * FROM events WHERE task_id = ? AND seq >= ? ORDER BY seq", (task_id, from_seq))
        return [self._event(row) for row in rows.fetchall()]

    def last_seq(self, task_id):
        return self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE task_id = ?", (task_id,)).fetchone()[0]


def killing_store(ctx, store, after):
    """``store``, but the process dies (SIGKILL) right after its ``after``-th append returns."""
    base = getattr(ctx.module, "EventStore", object)
    base = base if isinstance(base, type) else object
    count = [0]

    class Killing(base):
        def append(self, *args):
            event = store.append(*args)
            count[0] += 1
            if count[0] == after:
                os.kill(os.getpid(), signal.SIGKILL)
            return event

        def list(self, *args):
            return store.list(*args)

        def last_seq(self, *args):
            return store.last_seq(*args)

    return Killing()
