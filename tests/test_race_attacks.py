"""Held-out attacks on the races (issue 42): code that switches off what used to schedule a race, or replaces it, earns
what the racy submission earns without it.

The races used to be made in the learner's process: part D's appenders
taken one bytecode at a time by a tracer, part C's armed writer stopped by
a trace callback on its SQLite connections, each run by a probe of the
learner process's registry. Now the grading side makes both (a lent lock, a
lent clock) and nothing of the schedule runs over there. Each attack is
written as the red team wrote it, against what it knew, and appended to a
racy submission (a mutant of the reference); the pair is graded in one
batch at one seed, and every task's status and score must be the racy
submission's. Each test also holds the racy submission below full marks,
so a race that never happens fails it too.

Cost: three batches of two submissions, one or two tasks each (~4 s each).
"""

import json
import subprocess
import sys

import pytest
from hostile.forging import install_block
from support.corpus import Corpus
from support.paths import ROOT
from support.submissions import build_submission

pytestmark = pytest.mark.part

SEED = 11

RACY_STREAM = Corpus("branches").mutant_source("stream_check_then_append_without_lock")
RACY_STORE = Corpus("events").mutant_source("no_transaction")

# 1. A wrapper around the stream's append that sets the thread's tracer off, and back, around each append when one is
# set (the names built at run time, so the static reading does not see them).
TRACER_OFF = r'''
import sys as _sys

_set, _get = getattr(_sys, "set" + "trace"), getattr(_sys, "get" + "trace")
_append = CaseStream.append


def _untraced(self, event, expected_version):
    before = _get()
    if before is None:  # nobody is tracing this thread: nothing to switch off
        return _append(self, event, expected_version)
    _set(None)
    try:
        return _append(self, event, expected_version)
    finally:
        _set(before)


CaseStream.append = _untraced
'''

# 2. Part C's rival writer used to fire from a trace callback on the store's connection: one line switches it off.
TRACE_CALLBACK_OFF = ("        body = check_new_event(task_id, seq, type, payload)  # before any write\n",
                      "        body = check_new_event(task_id, seq, type, payload)  # before any write\n"
                      "        self._db.set_trace_callback(None)\n")

# 3. The probe registry, reached up the callers' frames, its ``stream_race`` replaced by one that reports a clean race:
# one winner a round, the others StaleVersion, whatever the stream does.
FORGED_RACE = r'''
def _stale(expected):
    raise StaleVersion(expected, expected + 1)


def _forged_race(ctx, writers, rounds):
    report = []
    for number in range(rounds):
        stale = ctx.attempt(lambda number=number: _stale(number), ("expected", "actual"))
        results = [{"result": number + 1}] + [{"result": stale} for _ in range(writers - 1)]
        report.append({"expected": number, "results": results, "version": number + 1})
    return {"rounds": report, "events": [{"round": n, "writer": 0} for n in range(rounds)]}


_forged = {"stream_race": _forged_race, "stream_script": None}
_forged = {name: fn for name, fn in _forged.items() if fn is not None}
''' + install_block()


def _graded(tmp_path, tasks: list[str], sources: dict[str, dict[str, str]]) -> dict[str, list[tuple]]:
    """Each submission (name -> its modules' sources over the reference) graded in one batch at ``SEED``."""
    paths = {name: build_submission(tmp_path / name, modules=modules) for name, modules in sources.items()}
    args = [sys.executable, "-m", "grader", *map(str, paths.values()), "--json", "--seed", str(SEED)]
    for task_id in tasks:
        args += ["--task", task_id]
    done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=600)
    reports = json.loads(done.stdout)
    return {name: [(t["id"], t["status"], t["score"]) for t in report["tasks"]] for name, report in zip(paths, reports)}


def _same_as_racy(got: dict, task_id: str) -> None:
    racy = got["racy"]
    assert [status for _, status, _ in racy] == ["failed"], f"the racy submission must lose the race: {racy}"
    assert got["attacked"] == racy, f"{task_id}: the attack scored {got['attacked']}, the racy submission {racy}"


def test_switching_the_tracer_off_around_append_earns_what_the_racy_stream_earns(tmp_path):
    got = _graded(tmp_path, ["branches.optimistic"], {"racy": {"branches.py": RACY_STREAM},
                                                      "attacked": {"branches.py": RACY_STREAM + TRACER_OFF}})
    _same_as_racy(got, "branches.optimistic")


def test_switching_the_sqlite_trace_callback_off_earns_what_the_racy_store_earns(tmp_path):
    old, new = TRACE_CALLBACK_OFF
    assert RACY_STORE.count(old) == 1
    got = _graded(tmp_path, ["events.concurrency"], {"racy": {"events.py": RACY_STORE},
                                                     "attacked": {"events.py": RACY_STORE.replace(old, new)}})
    _same_as_racy(got, "events.concurrency")


def test_replacing_the_race_probe_in_the_registry_earns_what_the_racy_stream_earns(tmp_path):
    got = _graded(tmp_path, ["branches.optimistic"], {"racy": {"branches.py": RACY_STREAM},
                                                      "attacked": {"branches.py": RACY_STREAM + FORGED_RACE}})
    _same_as_racy(got, "branches.optimistic")
