"""Part C timings: the reference event stores on SQLite and PostgreSQL, and what resuming costs.

    .venv/bin/python benchmarks/events.py [--events 100000] [--appends 5000] [--no-postgres]

- append throughput: ``--appends`` single appends (each its own transaction,
  committed before it returns), per backend;
- projection and replay of ``--events`` events: the log is bulk-loaded, then
  ``list`` (read and build every Event), ``project_state`` (the fold alone),
  a replay to the middle seq, and a tail read ``list(task, from_seq)``;
- resume cost against history length: a plan of n steps crashed at its last
  step, resumed (one tool left to run), for growing n. ``run_task`` reads
  the log through a read-once view, so each event is fetched once; the first
  run still folds the log before every call (``call_tool`` asks it), a small
  n² term, while the resume reads and folds it about once.

PostgreSQL is a throwaway server started here (tests/support/postgres_server.py):
default settings, fsync on. Wall times vary with the machine's load: compare
figures from one run.
"""

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time

import bootstrap  # noqa: F401  (first: this checkout's grader and tests/ on sys.path)
from support.paths import ROOT


def reference():
    spec = importlib.util.spec_from_file_location("reference_events", ROOT / "solutions" / "agstate" / "events.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ev = reference()


def timed(function, *args):
    started = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - started, result


def payload(seq: int) -> dict:
    return {"call_id": f"{seq // 2}:lookup", "result": {"rows": seq % 7, "note": "x" * 40}}


def append_rate(store, count: int) -> float:
    task = f"append-{time.time_ns()}"
    seconds, _ = timed(lambda: [store.append(task, seq, "tool.result", payload(seq)) for seq in range(1, count + 1)])
    return count / seconds


def bulk_load(store, task: str, count: int) -> None:
    """Write ``count`` events straight into the store's table (the append path is measured separately)."""
    rows = [(task, seq, "tool.result", json.dumps(payload(seq), sort_keys=True), 1.7e9 + seq) for seq in range(1, count + 1)]
    db = store._db
    if isinstance(store, ev.SqliteEventStore):
        db.execute("BEGIN")
        db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?)", rows)
        db.execute("COMMIT")
    else:
        with db.cursor() as cursor, cursor.copy("COPY events (task_id, seq, type, payload, ts) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


def replay_figures(store, count: int) -> dict:
    task = f"replay-{time.time_ns()}"
    bulk_load(store, task, count)
    list_s, events = timed(store.list, task)  # read and build every Event
    fold_s, state = timed(ev.project_state, events)
    assert state.last_seq == count and len(state.tool_results) == count // 2 + 1
    middle_s, _ = timed(lambda: ev.project_state(store.list(task)[: count // 2]))
    tail_s, tail = timed(store.list, task, count - 999)
    assert len(tail) == 1000
    return {"list": list_s, "project_state": fold_s, "replay to the middle seq (list + fold)": middle_s,
            "tail read, list(task, from_seq) of the last 1,000": tail_s}


def resume_cost(store, steps: int) -> tuple[float, float]:
    """Seconds of the first run of ``steps`` steps (crashing at its last step), and of its resume."""
    task = f"resume-{steps}-{time.time_ns()}"
    plan = [{"tool": "lookup", "args": {"n": i}} for i in range(steps)]
    state = {"fail": True}

    def lookup(n):
        if n == steps - 1 and state["fail"]:
            state["fail"] = False
            raise TimeoutError("the last step timed out")
        return n

    started = time.perf_counter()
    try:
        ev.run_task(store, task, {}, plan, {"lookup": lookup})
    except TimeoutError:
        first = time.perf_counter() - started
    seconds, output = timed(ev.run_task, store, task, {}, plan, {"lookup": lookup})
    assert output == list(range(steps))
    return first, seconds


def report(name: str, store, args) -> None:
    print(f"\n## {name}")
    print(f"append: {append_rate(store, args.appends):,.0f} events/s ({args.appends:,} appends, one commit each)")
    for label, seconds in replay_figures(store, args.events).items():
        print(f"{label} of {args.events:,} events: {seconds:.3f} s")
    for steps in args.resume_steps:
        first, resume = resume_cost(store, steps)
        print(f"{steps} steps ({2 * steps + 1} events logged): first run to the crash at the last step {first:.3f} s, "
              f"resume {resume:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--appends", type=int, default=5_000)
    parser.add_argument("--resume-steps", type=int, nargs="+", default=[10, 100, 300, 1000])
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    print(f"# part C benchmark: python {sys.version.split()[0]}, {os.cpu_count()} cores")
    report("SQLite, in memory", ev.SqliteEventStore(), args)
    report("SQLite, file (WAL, synchronous=FULL)", ev.SqliteEventStore(os.path.join(tempfile.mkdtemp(), "events.db")), args)
    if not args.no_postgres:
        from support.postgres_server import PostgresServer

        with PostgresServer() as server:
            store = ev.PostgresEventStore(server.url)
            report("PostgreSQL 15, local server (fsync on)", store, args)
            store.close()


if __name__ == "__main__":
    main()
