"""Part C — event sourcing for agent runs: log every action once, resume from the log.

An agent that calls tools and then dies cannot be restarted from scratch (it
would send the invoice twice) nor from a status row (which cannot say which
tool already ran). Here every action is an immutable event, numbered per task
from 1; the run's state is a fold over its events, and a resumed run asks the
log, not the tool, for every result already obtained.

Rules of the store (``EventStore``), checked on every backend:
- ``append`` rejects an unknown type, a seq that is not an int >= 1 or a
  payload that is not a JSON object, before writing anything
  (``EventStoreError``);
- ``seq == last_seq + 1``: stored, ``ts`` set by the store from
  ``time.time()``, read once the seq is known to be free (a refused or
  retried append reads no clock; the grader races writers at that read);
- an existing seq with the same type and payload: the stored event comes
  back and nothing is written (an idempotent retry; ``ts`` is not compared);
- an existing seq with another type or payload, or a gap: ``ConcurrencyError``;
  two writers racing for one seq: exactly one wins;
- ``list`` returns the events from ``from_seq`` on, ascending, equal to what
  was appended; a file-backed store survives its process being killed.

Notebooks: 13_invoice_timeout … 19_audit_view. Check with ``check("events")``.
"""

import inspect
import json
import os
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ConfigDict
from typing_extensions import TypedDict

__all__ = [
    "EVENT_TYPES",
    "Event",
    "EventStoreError",
    "ConcurrencyError",
    "EventStore",
    "SqliteEventStore",
    "PostgresEventStore",
    "open_store",
    "check_new_event",
    "same_content",
    "TaskState",
    "project_state",
    "call_tool",
    "run_task",
    "InvoiceState",
    "INVOICE_STEPS",
    "build_invoice_graph",
]

EVENT_TYPES = ("agent.started", "tool.called", "tool.result", "agent.crashed", "task.completed")


class Event(BaseModel):
    """One immutable fact of a task's run: the ``seq``-th event of ``task_id``."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    seq: int
    type: str
    payload: dict
    ts: float


class EventStoreError(Exception):
    """An event the store refuses: unknown type, bad seq or a payload that is not a JSON object."""


class ConcurrencyError(EventStoreError):
    """Another writer got there first: ``actual`` is not the seq the store expected for ``task_id``."""

    def __init__(self, task_id: str, expected: int, actual: int, why: str = ""):
        super().__init__(f"task {task_id!r}: expected seq {expected}, got {actual}" + (f" ({why})" if why else ""))
        self.task_id = task_id
        self.expected = expected
        self.actual = actual


# -- provided: the checks every backend shares --------------------------------------------
def check_new_event(task_id: str, seq: int, type: str, payload: dict) -> str:
    """Validate an event before anything is written; its payload as canonical JSON text."""
    if type not in EVENT_TYPES:
        raise EventStoreError(f"task {task_id!r}: unknown event type {type!r}; expected one of {EVENT_TYPES}")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise EventStoreError(f"task {task_id!r}: seq must be an int >= 1 (got {seq!r})")
    if not isinstance(payload, dict):
        raise EventStoreError(f"task {task_id!r}: payload must be a JSON object, a dict (got {payload!r})")
    try:
        return json.dumps(payload, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise EventStoreError(f"task {task_id!r}: payload is not JSON ({exc})") from None


def same_content(event: "Event", type: str, canonical_payload: str) -> bool:
    """Is a retry of ``event``: same type and payload. ``ts`` is the store's, never compared."""
    return event.type == type and json.dumps(event.payload, sort_keys=True) == canonical_payload


class EventStore(ABC):
    """An append-only log of events per task, numbered 1, 2, 3… with no gaps."""

    @abstractmethod
    def append(self, task_id: str, seq: int, type: str, payload: dict) -> Event:
        """Store event ``seq`` of ``task_id`` (see the module's rules); the stored event."""

    @abstractmethod
    def list(self, task_id: str, from_seq: int = 1) -> list[Event]:
        """The events of ``task_id`` with ``seq >= from_seq``, ascending."""

    @abstractmethod
    def last_seq(self, task_id: str) -> int:
        """The highest seq of ``task_id``; 0 when it has no event."""


# -- exercise: the SQLite store ------------------------------------------------------------
class SqliteEventStore(EventStore):
    """The store on SQLite: ``":memory:"`` or a file that several processes may open."""

    def __init__(self, path: str = ":memory:"):
        ### BEGIN SOLUTION events.append
        self.path = path
        # isolation_level=None: we write BEGIN/COMMIT ourselves. timeout: wait for a rival writer's lock.
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        self._lock = threading.Lock()  # one connection, shared by threads: one transaction at a time
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # a commit is on disk before append returns
        # The primary key makes (task_id, seq) unique in the schema itself, for every writer.
        self._db.execute("CREATE TABLE IF NOT EXISTS events (task_id TEXT NOT NULL, seq INTEGER NOT NULL, "
                         "type TEXT NOT NULL, payload TEXT NOT NULL, ts REAL NOT NULL, PRIMARY KEY (task_id, seq))")
        ### END SOLUTION

    def append(self, task_id: str, seq: int, type: str, payload: dict) -> Event:
        ### BEGIN SOLUTION events.append events.idempotent events.concurrency events.durable
        body = check_new_event(task_id, seq, type, payload)  # before any write
        with self._lock:
            # BEGIN IMMEDIATE takes the write lock now: the check and the insert are one step for every process.
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT task_id, seq, type, payload, ts FROM events WHERE task_id = ? AND seq = ?",
                                       (task_id, seq)).fetchone()
                last = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE task_id = ?", (task_id,)).fetchone()[0]
                if row is not None:
                    stored = _event(row)
                    if same_content(stored, type, body):
                        return stored  # a retry: the stored event, nothing written
                    raise ConcurrencyError(task_id, last + 1, seq, f"seq {seq} already holds another {stored.type!r} event")
                if seq != last + 1:
                    raise ConcurrencyError(task_id, last + 1, seq, "a gap: events must be numbered without holes")
                event = Event(task_id=task_id, seq=seq, type=type, payload=json.loads(body), ts=time.time())
                self._db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?)", (task_id, seq, type, body, event.ts))
                self._db.execute("COMMIT")
                return event
            finally:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
        ### END SOLUTION

    def list(self, task_id: str, from_seq: int = 1) -> list[Event]:
        ### BEGIN SOLUTION events.append
        with self._lock:
            rows = self._db.execute("SELECT task_id, seq, type, payload, ts FROM events WHERE task_id = ? AND seq >= ? "
                                    "ORDER BY seq", (task_id, from_seq)).fetchall()
        return [_event(row) for row in rows]
        ### END SOLUTION

    def last_seq(self, task_id: str) -> int:
        ### BEGIN SOLUTION events.append
        with self._lock:
            return self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE task_id = ?", (task_id,)).fetchone()[0]
        ### END SOLUTION


def _event(row) -> Event:
    task_id, seq, type, payload, ts = row
    return Event(task_id=task_id, seq=seq, type=type, payload=json.loads(payload), ts=ts)


# -- provided: the PostgreSQL store (psycopg 3) ------------------------------------------------
class PostgresEventStore(EventStore):
    """Provided: the same store on PostgreSQL, e.g. ``PostgresEventStore("postgresql://user@host:5432/db")``."""

    def __init__(self, dsn: str):
        import psycopg  # only this store needs it

        self._db = psycopg.connect(dsn, autocommit=True)
        self._lock = threading.Lock()
        # payload is JSON text, not JSONB: JSONB refuses "\u0000", which is valid JSON.
        self._db.execute("CREATE TABLE IF NOT EXISTS events (task_id TEXT NOT NULL, seq INTEGER NOT NULL, "
                         "type TEXT NOT NULL, payload TEXT NOT NULL, ts DOUBLE PRECISION NOT NULL, "
                         "PRIMARY KEY (task_id, seq))")

    def append(self, task_id: str, seq: int, type: str, payload: dict) -> Event:
        body = check_new_event(task_id, seq, type, payload)
        with self._lock, self._db.transaction():
            # One writer per task at a time, across connections: the lock ends with the transaction.
            self._db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (task_id,))
            row = self._db.execute("SELECT task_id, seq, type, payload, ts FROM events WHERE task_id = %s AND seq = %s",
                                   (task_id, seq)).fetchone()
            last = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE task_id = %s", (task_id,)).fetchone()[0]
            if row is not None:
                stored = _event(row)
                if same_content(stored, type, body):
                    return stored
                raise ConcurrencyError(task_id, last + 1, seq, f"seq {seq} already holds another {stored.type!r} event")
            if seq != last + 1:
                raise ConcurrencyError(task_id, last + 1, seq, "a gap: events must be numbered without holes")
            event = Event(task_id=task_id, seq=seq, type=type, payload=json.loads(body), ts=time.time())
            self._db.execute("INSERT INTO events VALUES (%s, %s, %s, %s, %s)", (task_id, seq, type, body, event.ts))
            return event

    def list(self, task_id: str, from_seq: int = 1) -> list[Event]:
        with self._lock:
            rows = self._db.execute("SELECT task_id, seq, type, payload, ts FROM events WHERE task_id = %s AND seq >= %s "
                                    "ORDER BY seq", (task_id, from_seq)).fetchall()
        return [_event(row) for row in rows]

    def last_seq(self, task_id: str) -> int:
        with self._lock:
            return self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE task_id = %s", (task_id,)).fetchone()[0]

    def close(self) -> None:
        self._db.close()


def open_store(url: str | None = None) -> EventStore:
    """Provided: ``sqlite:///path``, ``sqlite://`` (in memory) or ``postgresql://…``; default ``$AGSTATE_EVENTS_URL``, else SQLite in memory."""
    url = url or os.environ.get("AGSTATE_EVENTS_URL") or "sqlite://"
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresEventStore(url)
    if url.startswith("sqlite://"):
        return SqliteEventStore(url[len("sqlite:///"):] or ":memory:")
    raise EventStoreError(f"unknown store url {url!r}: expected sqlite:///path or postgresql://...")


# -- exercise: the state is a fold over the events ---------------------------------------------
class TaskState(BaseModel):
    """What the log says about a task as of its ``last_seq``-th event."""

    task_id: str
    status: Literal["new", "running", "crashed", "completed"]
    last_seq: int
    tool_results: dict[str, Any]
    output: Any = None


def project_state(events, task_id: str = "") -> TaskState:
    """Fold ``events`` (ascending) into a ``TaskState``; pure: the events are never changed.

    On any prefix ``events[:k]`` it gives the state as of seq k. ``tool_results``
    is keyed by call id. Status: ``new`` with no events; ``running`` after
    ``agent.started`` or a tool event; ``crashed`` after ``agent.crashed`` until
    the next event; ``completed`` after ``task.completed`` (``output`` set).
    """
    ### BEGIN SOLUTION events.project
    state = {"task_id": task_id, "status": "new", "last_seq": 0, "tool_results": {}, "output": None}
    results = {}  # a new dict: the payloads stay untouched
    for event in events:
        state["task_id"], state["last_seq"] = event.task_id, event.seq
        if event.type == "agent.crashed":
            state["status"] = "crashed"
        elif event.type == "task.completed":
            state["status"], state["output"] = "completed", event.payload.get("output")
        else:
            state["status"] = "running"
            if event.type == "tool.result":
                results[event.payload["call_id"]] = event.payload.get("result")
    return TaskState(**{**state, "tool_results": results})
    ### END SOLUTION


# -- exercise: tool calls that run once, and runs that resume ------------------------------------
def call_tool(store: EventStore, task_id: str, call_id: str, tool: Callable, args: dict) -> Any:
    """Run one logical tool call, identified by ``call_id``, at most once per logged result.

    A ``tool.result`` for ``call_id`` already in the log is returned without
    calling the tool, also when it is falsy (0, "", None, [], False).
    Otherwise: append ``tool.called`` {call_id, tool, args}, call
    ``tool(**args)`` (plus ``idempotency_key=f"{task_id}:{call_id}"`` when the
    tool takes that parameter), append ``tool.result`` {call_id, result}.
    """
    ### BEGIN SOLUTION events.resume
    # Keyed by call id, and `in`, never truthiness: a second call with other args is another call,
    # and a logged result of 0 or None is still a result.
    done = project_state(store.list(task_id), task_id).tool_results
    if call_id in done:
        return done[call_id]
    name = getattr(tool, "__name__", type(tool).__name__)
    store.append(task_id, store.last_seq(task_id) + 1, "tool.called", {"call_id": call_id, "tool": name, "args": args})
    kwargs = dict(args)
    if "idempotency_key" in inspect.signature(tool).parameters:
        kwargs["idempotency_key"] = f"{task_id}:{call_id}"
    result = tool(**kwargs)
    store.append(task_id, store.last_seq(task_id) + 1, "tool.result", {"call_id": call_id, "result": result})
    return result
    ### END SOLUTION


### BEGIN SOLUTION events.resume
class _ReadOnce(EventStore):
    """``store``, reading each event once: a later ``list`` fetches only the events after those seen.

    ``call_tool`` asks the log before every call; through this view a run of
    n steps reads its log once, not n times (O(n), not O(n²)).
    """

    def __init__(self, store: EventStore):
        self.store = store
        self.seen: dict[str, list[Event]] = {}

    def append(self, task_id: str, seq: int, type: str, payload: dict) -> Event:
        return self.store.append(task_id, seq, type, payload)  # read back by the next list(), like anyone's

    def list(self, task_id: str, from_seq: int = 1) -> list[Event]:
        seen = self.seen.setdefault(task_id, [])
        seen += self.store.list(task_id, len(seen) + 1)  # seqs have no gaps: the tail starts at len + 1
        return seen[from_seq - 1:]

    def last_seq(self, task_id: str) -> int:
        return self.store.last_seq(task_id)
### STUB
# # (room for your own helpers of run_task)
### END SOLUTION


def run_task(store: EventStore, task_id: str, input: Any, plan: list[dict], tools: dict[str, Callable]) -> Any:
    """Run ``plan`` (``[{"tool": name, "args": {...}}, ...]``) as task ``task_id``; resume it if it has a log.

    Step i has call id ``f"{i}:{name}"``. ``agent.started`` {input} is logged
    once; the output, logged as ``task.completed`` {output}, is the list of
    step results. An exception is logged as ``agent.crashed`` {reason} and
    re-raised. A completed task returns its stored output and calls nothing.
    """
    ### BEGIN SOLUTION events.resume
    log = _ReadOnce(store)
    state = project_state(log.list(task_id), task_id)
    if state.status == "completed":
        return state.output
    try:
        if state.status == "new":
            store.append(task_id, 1, "agent.started", {"input": input})
        output = []
        for i, step in enumerate(plan):
            call_id = f"{i}:{step['tool']}"
            # A result the projection already holds needs no second read of the log: resuming costs one
            # read of the history, not one per finished step.
            if call_id in state.tool_results:
                output.append(state.tool_results[call_id])
            else:
                output.append(call_tool(log, task_id, call_id, tools[step["tool"]], step.get("args", {})))
    except Exception as exc:
        store.append(task_id, store.last_seq(task_id) + 1, "agent.crashed", {"reason": f"{type(exc).__name__}: {exc}"})
        raise
    store.append(task_id, store.last_seq(task_id) + 1, "task.completed", {"output": output})
    return output
    ### END SOLUTION


# -- exercise: the invoice agent as a LangGraph graph ----------------------------------------------
class InvoiceState(TypedDict, total=False):
    """The invoice run: input ``task_id``, ``customer``, ``amount``; each node adds one key."""

    task_id: str
    customer: str
    amount: Any
    client: Any
    invoice_id: Any
    sent: Any


INVOICE_STEPS = [  # node (= tool name = call id), the state keys it passes as arguments, the key it writes
    ("fetch_client", {"customer": "customer"}, "client"),
    ("validate_amounts", {"amount": "amount"}, "amount"),
    ("create_invoice", {"client": "client", "amount": "amount"}, "invoice_id"),
    ("send_invoice", {"invoice_id": "invoice_id"}, "sent"),
]


def build_invoice_graph(store: EventStore, tools: dict[str, Callable], checkpointer=None):
    """fetch_client → validate_amounts → create_invoice → send_invoice, each through ``call_tool``.

    Each node calls ``tools[node]`` via ``call_tool`` with call id = the node's
    name and the arguments in ``INVOICE_STEPS``, and writes its key. After a
    crash, ``invoke(None, config)`` on the same thread finishes the run; no
    tool whose result was logged runs again.
    """
    ### BEGIN SOLUTION events.graph
    def node(name: str, arguments: dict, key: str):
        def run(state: InvoiceState) -> dict:
            args = {param: state[source] for param, source in arguments.items()}
            return {key: call_tool(store, state["task_id"], name, tools[name], args)}

        return run

    builder = StateGraph(InvoiceState)
    names = [name for name, _, _ in INVOICE_STEPS]
    for name, arguments, key in INVOICE_STEPS:
        builder.add_node(name, node(name, arguments, key))
    for before, after in zip([START, *names], [*names, END]):
        builder.add_edge(before, after)
    return builder.compile(checkpointer=checkpointer)
    ### END SOLUTION
