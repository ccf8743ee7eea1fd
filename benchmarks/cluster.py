"""A class graded on one Dask worker beside one machine's agstate-grade: submissions a minute, per worker.

    .venv/bin/python benchmarks/cluster.py [--class-size 24] [--part state] [--jobs CORES] [--shard-size 6]

A scheduler and one worker (``--nthreads 1``) on loopback. The class (the
reference's ``agstate/``, ``--class-size`` times) is graded once on the
worker to start its warm grader, then timed: on the worker (``--scheduler``,
shards of ``--shard-size``, ``--jobs`` each) and on this machine
(``agstate-grade --jobs``), each with a fresh seed; their gradebooks must
agree but for the seed. Wall times vary with the machine's load: compare
the ratio of one run.
"""

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bootstrap  # noqa: F401  (first: this checkout's grader and tests/ on sys.path)
from support.submissions import build_submission

DASK = Path(sys.executable).parent / "dask"


def grade(folder: Path, *options: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "grader", "class/*", *options], cwd=folder, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the class did not pass: {done.stdout[-1500:]}{done.stderr[-1500:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--class-size", type=int, default=24)
    parser.add_argument("--part", default="state")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--shard-size", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agstate-cluster-bench-") as scratch:
        folder = Path(scratch)
        for n in range(args.class_size):
            build_submission(folder / "class" / f"student-{n:03d}")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        address = f"tcp://127.0.0.1:{port}"
        log = (folder / "cluster.log").open("ab")
        processes = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                      stdout=log, stderr=log)]
        time.sleep(3)
        processes.append(subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"],
                                          stdout=log, stderr=log))
        try:
            common = ["--part", args.part, "--jobs", str(args.jobs)]
            cluster = [*common, "--scheduler", address, "--shard-size", str(args.shard_size)]
            grade(folder, *cluster, "--seed", "1")  # the worker's warm grader starts
            on_worker = grade(folder, *cluster, "--seed", "2")
            local = grade(folder, *common, "--seed", "3")
        finally:
            for process in processes:
                process.kill()
                process.wait()
    per_minute = 60 * args.class_size
    print(f"{args.class_size} submissions, part {args.part}, --jobs {args.jobs}, sandbox on, agstate-grade's examples")
    print(f"  one machine, agstate-grade:          {local:6.1f} s, {per_minute / local:6.1f} submissions a minute")
    print(f"  one Dask worker (shards of {args.shard_size:>3}):     {on_worker:6.1f} s, {per_minute / on_worker:6.1f} "
          f"submissions a minute ({local / on_worker:.2f}x one machine's)")


if __name__ == "__main__":
    main()
