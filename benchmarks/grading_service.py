"""What a check costs on the grading service, against today's warm local check(), and how many a class gets a minute.

    .venv/bin/python benchmarks/grading_service.py [--runs 5] [--class-size 12] [--jobs CORES] [--settle 40]

The service (grader/service/app.py) runs in this process, on a port of its
own, as the hub would run it, with the hub's answer to "whose token is
this" stood in for (the hub's own lookup is one cached request per token).
Each check sends the reference's ``agstate/`` files, as the course kit's
``check()`` does, and waits for the report.

1. Per check: one task (``state.keep_max``) and one part (``state``), the
   median of ``--runs`` checks, on the service and on this kernel's warm
   grader (grader.notebook.warm, given ``--settle`` seconds to draw ahead
   as a learner's kernel does between checks), and their ratio.
2. A class at once: ``--class-size`` students each send one check of part
   ``state`` at the same moment; the service grades ``--jobs`` at a time.
   The wall time, the checks a minute, and the median and slowest answer.

Wall times vary with the machine's load: compare the ratios of one run.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from service_in_thread import ServiceInThread, settings  # after the paths: this checkout's grader and tests

from grader.notebook import check as notebook

SOLUTIONS = ROOT / "solutions"
FILES = {path.name: path.read_text() for path in sorted((SOLUTIONS / "agstate").glob("*.py"))}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--class-size", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--settle", type=float, default=40.0, help="seconds the warm grader draws ahead (default 40)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agstate-service-bench-") as folder:
        service = ServiceInThread(settings(Path(folder), jobs=args.jobs, per_minute=10_000, check_limit=900.0))
        on_warm_grader("state.overwrite")  # the warm grader starts, as at a kernel's start
        time.sleep(args.settle)
        print(f"1. per check, median of {args.runs} (seconds); sandbox on; agstate-grade's examples and timeout")
        print(f"   {'target':<16} {'service':>8} {'warm local':>10} {'ratio':>6}")
        for target in ("state.keep_max", "state"):
            remote = statistics.median(on_service(service, f"bench-{i}", target) for i in range(args.runs))
            local = statistics.median(on_warm_grader(target) for _ in range(args.runs))
            print(f"   {target:<16} {remote:8.2f} {local:10.2f} {remote / local:6.2f}")
        print(f"2. a class of {args.class_size} checking part state at once, {args.jobs} graded at a time")
        started = time.perf_counter()
        with ThreadPoolExecutor(args.class_size) as pool:
            answers = sorted(pool.map(lambda i: on_service(service, f"student-{i}", "state"), range(args.class_size)))
        wall = time.perf_counter() - started
        print(f"   wall {wall:.1f} s; {60 * args.class_size / wall:.1f} checks a minute; answer median {statistics.median(answers):.1f} s, "
              f"slowest {answers[-1]:.1f} s")


if __name__ == "__main__":
    main()
