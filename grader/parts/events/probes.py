"""Part C's probes: trusted scenarios run in the learner's child against ``agstate/events.py``.

Stores live in the child's own temp dirs. Crashes are real: a writer or a
run is forked and killed with SIGKILL (after some acknowledged appends, after
the n-th append of a run, or inside a tool after its side effect), then the
log is reopened by another process. Side effects go to a ledger file that
survives the kill. Probes return plain data; the grading process judges.
"""

import functools
import gc
import json
import os
import select
import shutil
import signal
import sqlite3
import tempfile
import time

from grader.probes import probe

__all__ = ["crash_writer", "store_ops", "race", "durable_crash", "project", "resume_run", "call_tool_run", "invoice_run",
           "INVOICE_TOOLS"]


def _dump(value):
    """An event (or list of them) as plain data; anything else as it is (the wire marks it opaque)."""
    if isinstance(value, list):
        return [_dump(item) for item in value]
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else value


def _raised(ctx, exc: BaseException) -> dict:
    """The facts of an exception the learner's code raised, incl. ConcurrencyError's attributes."""
    info = {"raised": type(exc).__name__, "kinds": []}
    for name in ("EventStoreError", "ConcurrencyError"):
        kind = getattr(ctx.module, name, None)
        if isinstance(kind, type) and isinstance(exc, kind):
            info["kinds"].append(name)
    for attr in ("task_id", "expected", "actual"):
        value = getattr(exc, attr, None)
        info[attr] = value if value is None or type(value) in (str, int) else repr(value)
    return info


def _with_scratch(fn):
    """The probe gets a fresh temp dir (after ``ctx``), removed when it returns: nothing piles up in /tmp."""
    @functools.wraps(fn)
    def run(ctx, *args):
        folder = tempfile.mkdtemp(prefix="agstate-events-")
        try:
            return fn(ctx, folder, *args)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return run


def _store(ctx, path=None):
    return ctx.get("SqliteEventStore")(path) if path else ctx.get("SqliteEventStore")()


def _run_ops(ctx, store, ops):
    return [_outcome(ctx, lambda op=op, args=args: _dump(getattr(store, op)(*args))) for op, *args in ops]


def _outcome(ctx, call):
    """``{"ok": value}``, or the facts of what the learner's code raised; a stub's NotImplementedError goes through."""
    try:
        return {"ok": call()}
    except NotImplementedError:
        raise
    except Exception as exc:
        return _raised(ctx, exc)


@probe
@_with_scratch
def store_ops(ctx, folder, ops, on_file):
    """Run ``ops`` (``["append", task, seq, type, payload]``, ``["list", task, from]``, ``["last_seq", task]``) on a new store."""
    path = os.path.join(folder, "events.db") if on_file else None
    return _run_ops(ctx, _store(ctx, path), ops)


def _forked(body) -> int:
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


@probe
@_with_scratch
def race(ctx, folder, rounds):
    """Two processes, each with its own store on one file, race for seqs 1..``rounds``, interleaved on purpose.

    For each seq one writer (taking turns) is *armed*: when its append is about
    to run its first writing SQL statement — its check is done — it stops
    (SQLite's trace callback on the store's connections) until the other
    writer has appended the same seq, or has shown it cannot: the database is
    write-locked (a transaction such as BEGIN IMMEDIATE holds it), or the
    other writer is still waiting after ``_BLOCKED_AFTER`` seconds (a lock of
    another kind). So a check-then-insert store meets its rival between the
    check and the write on every run, not only when the scheduler happens to
    put it there. Returns, per seq, what each writer's append did.
    """
    path = os.path.join(folder, "events.db")
    _store(ctx, path).list("race")  # the schema exists before the writers start
    writers = [_RaceWriter(ctx, path, number) for number in (0, 1)]
    rounds_seen = []
    try:
        for seq in range(1, rounds + 1):
            armed, other = writers[(seq - 1) % 2], writers[seq % 2]
            armed.send(f"armed {seq}")
            first = armed.receive()  # "paused", or its outcome when it never wrote (it raised, or wrote nothing)
            locked = interleaved = False
            if first == "paused":
                locked = _write_locked(path)
                if not locked:
                    other.send(f"append {seq}")
                    interleaved = other.ready(_BLOCKED_AFTER)
                armed.send("go")
                armed_outcome = armed.receive()
                if locked:
                    other.send(f"append {seq}")
                other_outcome = other.receive()
            else:
                armed_outcome = first
                other.send(f"append {seq}")
                other_outcome = other.receive()
            rounds_seen.append({"seq": seq, "armed": armed.number, "paused": first == "paused", "locked": locked,
                                "interleaved": interleaved, "outcomes": {str(armed.number): armed_outcome,
                                                                         str(other.number): other_outcome}})
    finally:
        codes = [writer.stop() for writer in writers]
    return {"rounds": rounds_seen, "codes": codes, "events": _dump(_store(ctx, path).list("race"))}


_BLOCKED_AFTER = 2.0  # a rival append that has not finished by then is waiting for a lock


def _write_locked(path: str) -> bool:
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


class _RaceWriter:
    """A forked process with its own store, appending when told; the armed append stops before its first write."""

    def __init__(self, ctx, path: str, number: int):
        self.number = number
        orders_r, self._orders = os.pipe()
        self._replies, replies_w = os.pipe()
        self.pid = _forked(lambda: self._serve(ctx, path, orders_r, replies_w))
        os.close(orders_r)
        os.close(replies_w)
        self._buffer = b""

    def _serve(self, ctx, path, orders, replies) -> None:
        store = _store(ctx, path)
        state = {"armed": False}

        def before_statement(sql):
            if state["armed"] and sql.lstrip().split(None, 1)[:1] and \
                    sql.lstrip().split(None, 1)[0].upper() in ("INSERT", "REPLACE", "UPDATE", "DELETE"):
                state["armed"] = False
                os.write(replies, b"paused\n")
                _read_line(orders)  # "go"

        for connection in [o for o in gc.get_objects() if isinstance(o, sqlite3.Connection)]:
            try:
                connection.set_trace_callback(before_statement)
            except sqlite3.ProgrammingError:
                pass  # a closed connection of an earlier store
        while (order := _read_line(orders)) not in ("", "quit"):
            verb, seq = order.split()
            state["armed"] = verb == "armed"
            try:
                store.append("race", int(seq), "tool.called", {"writer": self.number})
                outcome = "win"
            except Exception as exc:
                outcome = type(exc).__name__ if type(exc).__name__ == "ConcurrencyError" else \
                    f"{type(exc).__name__}: {str(exc)[:200]}".replace("\n", " ")
            state["armed"] = False
            os.write(replies, outcome.encode() + b"\n")

    def send(self, order: str) -> None:
        os.write(self._orders, order.encode() + b"\n")

    def ready(self, timeout: float) -> bool:
        return bool(self._buffer) or bool(select.select([self._replies], [], [], timeout)[0])

    def receive(self) -> str:
        while b"\n" not in self._buffer:
            chunk = os.read(self._replies, 4096)
            if not chunk:
                return "the writer process died"
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode(errors="replace")

    def stop(self) -> int:
        try:
            self.send("quit")
        except OSError:
            pass
        os.close(self._orders)
        os.close(self._replies)
        return os.waitpid(self.pid, 0)[1]


def _read_line(fd) -> str:
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(fd, 1)
        if not chunk:
            break
        line += chunk
    return line.decode().strip()


def _read_all(fd) -> str:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode()


def crash_writer(open_store, task_id, events, kill_after, start_seq=1) -> list[int]:
    """Fork a writer appending ``events`` from ``start_seq``; SIGKILL it after ``kill_after`` acks.

    The seqs it acknowledged before it died: at least ``kill_after``, more when
    it was faster than this reader.
    """
    read_end, write_end = os.pipe()

    def write():
        os.close(read_end)
        store = open_store()
        for seq, (type, payload) in enumerate(events, start_seq):
            store.append(task_id, seq, type, payload)
            os.write(write_end, f"{seq}\n".encode())  # acknowledged: append returned

    pid = _forked(write)
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
    # Acknowledgements it sent before it died, read or not yet: each is an append that returned.
    while chunk := os.read(read_end, 4096):
        buffer += chunk
    acked += [int(line) for line in buffer.split(b"\n") if line]
    os.close(read_end)
    return acked


@probe
@_with_scratch
def durable_crash(ctx, folder, rounds):
    """Kill a writer mid-append once per round (``[events, kill_after]``); after each, reopen and read."""
    path = os.path.join(folder, "events.db")
    found = []
    for events, kill_after in rounds:
        start = _store(ctx, path).last_seq("durable") + 1
        acked = crash_writer(lambda: _store(ctx, path), "durable", [tuple(e) for e in events], kill_after, start)
        reopened = _store(ctx, path)  # a new connection in this process: not the writer's
        found.append({"start": start, "acked": acked, "events": _dump(reopened.list("durable"))})
    return {"rounds": found, "schema": _unique_keys(path)}


def _unique_keys(path):
    """For each table, the stored values of every two-column unique key (PRIMARY KEY or UNIQUE)."""
    db = sqlite3.connect(path)
    try:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        keys = []
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for index in db.execute(f"PRAGMA index_list('{table}')").fetchall():
                if not index[2]:  # not unique
                    continue
                columns = [row[2] for row in db.execute(f"PRAGMA index_info('{index[1]}')").fetchall()]
                if len(columns) == 2 and None not in columns:
                    rows = db.execute(f'SELECT "{columns[0]}", "{columns[1]}" FROM "{table}"').fetchall()
                    keys.append(sorted([list(row) for row in rows], key=repr))
        return {"integrity": integrity, "keys": keys}
    finally:
        db.close()


@probe
def project(ctx, events):
    """``project_state`` on every prefix of ``events`` (built as the learner's ``Event``s); and the events afterwards."""
    Event = ctx.get("Event")
    built = [Event(**event) for event in events]
    fold = ctx.get("project_state")
    states = [_outcome(ctx, lambda k=k: _dump(fold(built[:k]))) for k in range(len(built) + 1)]
    return {"states": states, "events_after": _dump(built)}


# -- runs with side effects and crashes ------------------------------------------------------------
class _Ledger:
    """Side effects, one JSON line each, written with O_APPEND: a SIGKILL never loses a written line."""

    def __init__(self, folder):
        self.path = os.path.join(folder, "ledger.jsonl")
        self.phase = 0
        self.executions = 0  # tool executions in this process (a forked run counts its own)

    def record(self, **fields):
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (json.dumps({"phase": self.phase, **fields}) + "\n").encode())
        finally:
            os.close(fd)

    def read(self):
        if not os.path.exists(self.path):
            return []
        with open(self.path) as handle:
            return [json.loads(line) for line in handle if line.strip()]


class ToolTimeout(Exception):
    """The fake tool's transient failure (a timeout)."""


def _tool(ledger, name, params, answer, crash):
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
            row = (task_id, seq, type, body, time.time())
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


def _killing_store(ctx, store, after):
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


def _phase_one(ctx, ledger, path, crash, run):
    """Run ``run(store)`` as phase 1: in a forked process for a kill, here for a raised error."""
    ledger.phase = 1
    if crash and crash[0] == "raise":
        try:
            run(TrustedStore(ctx, path))
            return {"raised": None}
        except NotImplementedError:
            raise
        except Exception as exc:
            return {"raised": type(exc).__name__}

    def body():
        store = TrustedStore(ctx, path)
        run(_killing_store(ctx, store, crash[1]) if crash and crash[0] == "kill_after_append" else store)

    pid = _forked(body)
    status = os.waitpid(pid, 0)[1]
    return {"killed": os.WIFSIGNALED(status), "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None}


@probe
@_with_scratch
def resume_run(ctx, folder, task_id, plan, answers, keyed, crash):
    """``run_task`` with a crash in phase 1, resumed in phase 2, and called once more in phase 3.

    ``answers``: "tool/n" -> the tool's result; ``keyed``: tools taking idempotency_key.
    """
    path = os.path.join(folder, "events.db")
    ledger = _Ledger(folder)
    names = sorted({step["tool"] for step in plan})
    tools = {name: _tool(ledger, name, ["n", "idempotency_key=None"] if name in keyed else ["n"],
                         lambda kwargs, name=name: answers[f"{name}/{kwargs['n']}"], crash) for name in names}
    run_task = ctx.get("run_task")

    def run(store):
        return run_task(store, task_id, {"plan": len(plan)}, plan, tools)

    first = _phase_one(ctx, ledger, path, crash, run)
    log_after_crash = _dump(TrustedStore(ctx, path).list(task_id))
    ledger.phase = 2
    second = _outcome(ctx, lambda: run(TrustedStore(ctx, path)))
    ledger.phase = 3
    third = _outcome(ctx, lambda: run(TrustedStore(ctx, path)))
    return {"first": first, "log_after_crash": log_after_crash, "second": second, "third": third,
            "ledger": ledger.read(), "log": _dump(TrustedStore(ctx, path).list(task_id))}


@probe
@_with_scratch
def call_tool_run(ctx, folder, task_id, calls, answers, keyed):
    """``call_tool`` for each ``[call_id, tool, n]`` on one log; the results, the side effects and the log."""
    store = TrustedStore(ctx, os.path.join(folder, "events.db"))
    ledger = _Ledger(folder)
    names = sorted({tool for _, tool, _ in calls})
    tools = {name: _tool(ledger, name, ["n", "idempotency_key=None"] if name in keyed else ["n"],
                         lambda kwargs, name=name: answers[f"{name}/{kwargs['n']}"], None) for name in names}
    call_tool = ctx.get("call_tool")
    results = [_outcome(ctx, lambda c=c: call_tool(store, task_id, c[0], tools[c[1]], {"n": c[2]})) for c in calls]
    return {"results": results, "ledger": ledger.read(), "log": _dump(store.list(task_id))}


INVOICE_TOOLS = {  # name -> (parameters, the result from the arguments)
    "fetch_client": (["customer"], lambda a: {"name": a["customer"], "vat": len(a["customer"]) % 2 == 0}),
    "validate_amounts": (["amount"], lambda a: a["amount"]),
    "create_invoice": (["client", "amount"], lambda a: f"INV-{a['client']['name'][:4]}-{a['amount']}"),
    "send_invoice": (["invoice_id", "idempotency_key=None"], lambda a: a["invoice_id"] != ""),
}


@probe
@_with_scratch
def invoice_run(ctx, folder, task_id, customer, amount, crash):
    """``build_invoice_graph`` with a SqliteSaver on a file: crash in phase 1, ``invoke(None, config)`` in phase 2."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    path, checkpoints = os.path.join(folder, "events.db"), os.path.join(folder, "checkpoints.db")
    ledger = _Ledger(folder)
    tools = {name: _tool(ledger, name, params, answer, crash) for name, (params, answer) in INVOICE_TOOLS.items()}
    build = ctx.get("build_invoice_graph")
    config = {"configurable": {"thread_id": task_id}, "recursion_limit": 20}

    def graph(store):
        saver = SqliteSaver(sqlite3.connect(checkpoints, check_same_thread=False))
        return build(store, tools, checkpointer=saver)

    # durability="sync": each step's checkpoint is on disk before the next step starts.
    first = _phase_one(ctx, ledger, path, crash, lambda store: graph(store).invoke(
        {"task_id": task_id, "customer": customer, "amount": amount}, config, durability="sync"))
    log_after_crash = _dump(TrustedStore(ctx, path).list(task_id))
    ledger.phase = 2
    second = _outcome(ctx, lambda: dict(graph(TrustedStore(ctx, path)).invoke(None, config, durability="sync")))
    return {"first": first, "log_after_crash": log_after_crash, "second": second, "ledger": ledger.read(),
            "log": _dump(TrustedStore(ctx, path).list(task_id))}

