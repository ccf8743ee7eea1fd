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
import asyncio
import json
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.notebook import check as notebook  # after the path: this checkout's grader
from grader.service import app as service

SOLUTIONS = ROOT / "solutions"
FILES = {path.name: path.read_text() for path in sorted((SOLUTIONS / "agstate").glob("*.py"))}


def start_service(jobs: int, folder: Path) -> int:
    """The service on a free port, in a thread; a request's student is its X-Student header."""
    service._Handler.get_current_user = lambda handler: {"kind": "user", "name": handler.request.headers["X-Student"]}
    settings = service.Settings(practice_seed=1, parts=["state"], examples=None, timeout=None, jobs=jobs, per_minute=10_000,
                                log=folder / "checks.jsonl", work=folder / "work")
    service.clear_work(settings.work)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ready = threading.Event()

    def serve():
        asyncio.set_event_loop(asyncio.new_event_loop())
        service.make_app(service.Checks(settings), "/").listen(port, "127.0.0.1")
        ready.set()
        asyncio.get_event_loop().run_forever()

    threading.Thread(target=serve, daemon=True).start()
    ready.wait(30)
    return port


def on_service(port: int, student: str, target: str) -> float:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/check", method="POST",
                                     data=json.dumps({"files": FILES, "target": target}).encode(),
                                     headers={"X-Student": student, "Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=900) as answer:
        report = json.loads(answer.read())
    seconds = time.perf_counter() - started
    if report["score"] != report["max_score"]:
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
        port = start_service(args.jobs, Path(folder))
        on_warm_grader("state.overwrite")  # the warm grader starts, as at a kernel's start
        time.sleep(args.settle)
        print(f"1. per check, median of {args.runs} (seconds); sandbox on; agstate-grade's examples and timeout")
        print(f"   {'target':<16} {'service':>8} {'warm local':>10} {'ratio':>6}")
        for target in ("state.keep_max", "state"):
            remote = statistics.median(on_service(port, f"bench-{i}", target) for i in range(args.runs))
            local = statistics.median(on_warm_grader(target) for _ in range(args.runs))
            print(f"   {target:<16} {remote:8.2f} {local:10.2f} {remote / local:6.2f}")
        print(f"2. a class of {args.class_size} checking part state at once, {args.jobs} graded at a time")
        started = time.perf_counter()
        with ThreadPoolExecutor(args.class_size) as pool:
            answers = sorted(pool.map(lambda i: on_service(port, f"student-{i}", "state"), range(args.class_size)))
        wall = time.perf_counter() - started
        print(f"   wall {wall:.1f} s; {60 * args.class_size / wall:.1f} checks a minute; answer median {statistics.median(answers):.1f} s, "
              f"slowest {answers[-1]:.1f} s")


if __name__ == "__main__":
    main()
