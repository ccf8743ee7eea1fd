"""What a warm grader's fork pays to forget the other students' examples, as each check's fork does.

    .venv/bin/python benchmarks/warm_fork.py [--students 30] [--part state] [--forks 7]

A warm grader (``grader.warm.server``) keeps the examples of up to 256
students' practice seeds; a check is graded in a fork of it that keeps only
its student's. This draws ``--students`` seeds of a part's examples, as a
roster does, then forks ``--forks`` times each way and times, in the fork,
from the fork to its student's examples alone:

- ``keep_only``: the other seeds' examples freed. Each reference count written
  makes the fork copy the page that holds it;
- ``see_only`` (what a fork does): the other seeds' examples set aside,
  unreachable, not freed.

Medians in milliseconds; they grow with the students and the parts kept.
"""

import argparse
import os
import statistics
import time

import bootstrap  # noqa: F401  (this checkout's grader)

from grader.engine import DEFAULT_EXAMPLES, bank, predraw
from grader.engine.registry import tasks_of


def in_a_fork(forget) -> float:
    """Milliseconds from the fork to ``forget`` done, measured in the fork."""
    read, write = os.pipe()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        forget([0])
        os.write(write, str(time.perf_counter() - started).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    took = float(os.read(read, 64))
    os.close(read)
    return 1000 * took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--part", default="state")
    parser.add_argument("--forks", type=int, default=7)
    args = parser.parse_args()
    began = time.perf_counter()
    task_ids = [task.id for task in tasks_of(args.part)]
    for seed in range(args.students):
        predraw.draw_ahead(task_ids, seed, DEFAULT_EXAMPLES)
    print(f"{args.students} students' examples of part {args.part} drawn ({len(bank.seeds())} seeds, "
          f"{time.perf_counter() - began:.0f} s)")
    for name, forget in (("keep_only (freed)", bank.keep_only), ("see_only (set aside)", bank.see_only)):
        times = [in_a_fork(forget) for _ in range(args.forks)]
        print(f"  {name:22} {statistics.median(times):6.1f} ms in the fork (median of {args.forks})")


if __name__ == "__main__":
    main()
