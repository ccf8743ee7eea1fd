"""What a check costs on the grading service, beside a kernel's warm local check() and the service before (a revision).

    .venv/bin/python benchmarks/grading_service.py [--runs 5] [--class-size 50] [--part-class 12] [--jobs CORES]
                                                   [--settle 40] [--before REV]

The service (grader/service/app.py) runs in this process, on a port of its
own, as the hub would run it, with the hub's answer to "whose token is
this" stood in for (the hub's own lookup is one cached request per token).
Each check sends the reference's ``agstate/`` files, as the course kit's
``check()`` does, and waits for the report. ``--before REV``: the service
of that revision too (its ``grader/service/app.py``, read from git; a fresh
``agstate-grade`` per check until warm graders came).

1. Per check: one task (``state.keep_max``) and one part (``state``), the
   median of ``--runs`` checks, on a kernel's warm grader (given
   ``--settle`` seconds to draw ahead, as a kernel does between checks), on
   the service before and on this one, and their ratio to the warm local
   check. A student's *first* check (a new practice seed: its examples are
   drawn) and a check *again* (the student's examples kept) apart.
2. A class at once: ``--class-size`` students each send one check of
   ``state.keep_max``, then ``--part-class`` students one of part
   ``state``, at the same moment, each their first; the service grades
   ``--jobs`` at a time. The wall time, the checks a minute, the median
   and slowest answer.

``--roster``: this revision's service is given a roster (``--roster FILE``) of every student the benchmark
sends a first check for, and the benchmark waits until their examples are drawn (not counted): *first* is
then a rostered student's first check.

Wall times vary with the machine's load: compare the ratios of one run.
"""

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import bootstrap  # noqa: F401  (first: this checkout's grader and tests/ on sys.path)
from support.paths import ROOT
from support.service_in_thread import ServiceInThread, settings

from grader.notebook import check as notebook

SOLUTIONS = ROOT / "solutions"
FILES = {path.name: path.read_text() for path in sorted((SOLUTIONS / "agstate").glob("*.py"))}


TARGETS = ("state.keep_max", "state")


def on_service(service: ServiceInThread, student: str, target: str) -> float:
    started = time.perf_counter()
    answer = service.post(student, FILES, target, timeout=900)
    seconds = time.perf_counter() - started
    report = answer.json()
    if answer.status_code != 200 or report["score"] != report["max_score"]:
        sys.exit(f"the reference did not pass {target} on the service: {report}")
    return seconds


def on_warm_grader(target: str) -> float:
    started = time.perf_counter()
    done = notebook._grade([str(SOLUTIONS), "--json", *notebook.target_options(target)])
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"the reference did not pass {target} locally: {done.stdout[-1500:]}{done.stderr[-1500:]}")
    return seconds


def service_of(revision: str):
    """The grading service's module as ``revision`` wrote it, importing this checkout's grader for the rest."""
    source = subprocess.run(["git", "show", f"{revision}:grader/service/app.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader(f"service_at_{revision}", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, f"{revision}:grader/service/app.py", "exec"), module.__dict__)
    return module


def at_once(service: ServiceInThread, students: int, target: str, name: str) -> str:
    started = time.perf_counter()
    with ThreadPoolExecutor(students) as pool:
        answers = sorted(pool.map(lambda i: on_service(service, f"{name}-{i}", target), range(students)))
    wall = time.perf_counter() - started
    return (f"wall {wall:5.1f} s; {60 * students / wall:5.1f} checks a minute; answer median "
            f"{statistics.median(answers):4.1f} s, slowest {answers[-1]:4.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--class-size", type=int, default=50, help="students checking one task at once (default 50)")
    parser.add_argument("--part-class", type=int, default=12, help="students checking part state at once (default 12)")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--settle", type=float, default=40.0, help="seconds the warm grader draws ahead (default 40)")
    parser.add_argument("--before", metavar="REV", help="also the service of this git revision (e.g. 1439bb4)")
    parser.add_argument("--roster", action="store_true", help="this revision's service draws its students' examples first")
    args = parser.parse_args()
    services = {"service": None}
    if args.before:
        services = {f"before {args.before}": service_of(args.before), **services}
    with tempfile.TemporaryDirectory(prefix="agstate-service-bench-") as folder:
        running = {}
        first_checks = [f"new-{target}-{i}" for target in TARGETS for i in range(args.runs)]
        first_checks += [f"class-service-{i}" for i in range(args.class_size)]
        first_checks += [f"part-class-service-{i}" for i in range(args.part_class)]
        for name, app in services.items():
            roster = None
            if args.roster and app is None:
                roster = Path(folder) / "roster.txt"
                roster.write_text("".join(f"{student}\n" for student in first_checks))
            chosen = settings(Path(folder) / name.replace(" ", "-"), jobs=args.jobs, per_minute=10_000, check_limit=900.0,
                              roster=roster)
            running[name] = ServiceInThread(chosen, app, warm=True) if app else ServiceInThread(chosen, warm=True)
        try:
            on_warm_grader("state.overwrite")  # the warm grader starts, as at a kernel's start
            time.sleep(args.settle)  # the services' warm graders start meanwhile
            if args.roster:
                began = time.perf_counter()
                while running["service"].checks._ahead is None or not running["service"].checks._ahead.done():
                    time.sleep(1)
                print(f"the roster's {len(first_checks)} students' examples drawn, {time.perf_counter() - began:.0f} s "
                      f"after the {args.settle:g} s settle")
            print(f"1. per check, median of {args.runs} (seconds); sandbox on; agstate-grade's examples and timeout")
            print(f"   {'target':<16} {'warm local':>10} " + " ".join(f"{name + ', ' + when:>28}" for name in running
                                                                      for when in ("first", "again")))
            for target in TARGETS:
                local = statistics.median(on_warm_grader(target) for _ in range(args.runs))
                cells = []
                for service in running.values():
                    first = statistics.median(on_service(service, f"new-{target}-{i}", target) for i in range(args.runs))
                    on_service(service, f"again-{target}", target)  # the student's examples drawn: kept for the next
                    again = statistics.median(on_service(service, f"again-{target}", target) for _ in range(args.runs))
                    cells += [f"{first:8.2f} ({first / local:5.2f}x)", f"{again:8.2f} ({again / local:5.2f}x)"]
                print(f"   {target:<16} {local:10.2f} " + " ".join(f"{cell:>28}" for cell in cells))
            print(f"2. a class at once, each student's first check, {args.jobs} graded at a time")
            for name, service in running.items():
                print(f"   {name:<18} {args.class_size} students, state.keep_max: "
                      + at_once(service, args.class_size, "state.keep_max", f"class-{name}"))
                print(f"   {name:<18} {args.part_class} students, part state:     "
                      + at_once(service, args.part_class, "state", f"part-class-{name}"))
        finally:
            for service in running.values():
                service.close()


if __name__ == "__main__":
    main()
