"""How long a notebook's check() takes: the warm grader (grader.notebook.warm) against a cold agstate-grade, on the reference.

    .venv/bin/python benchmarks/check.py [--runs 5] [--settle 40]

As a notebook's kernel uses it: the warm grader is started (as a kernel's
first check() starts it), given ``--settle`` seconds to draw its kernel
seed's examples ahead (a learner reads and writes meanwhile), then asked
for one task of each part and each whole part, without a seed (the
kernel's seed), sandbox on: its ``first`` answer for a target and the median
of ``--runs`` repeats. ``cold`` is a fresh ``python -I -m grader`` with a
fresh seed each time, as check() falls back to when no warm grader runs.
The first line times a check asked the moment the warm grader starts, before
it has drawn anything. Wall times vary with the machine's load: compare the
ratios of one run.
"""

import argparse
import statistics
import subprocess
import sys
import time

import bootstrap  # noqa: F401  (first: this checkout's grader and tests/ on sys.path)
from support.paths import ROOT

from grader.catalog import PARTS
from grader.notebook import check as notebook

# Each part's first task, then each whole part: from the catalog, so a new part is timed too.
TARGETS = [part.tasks[0].id for part in PARTS] + [part.name for part in PARTS]


def timed(grade, args: list[str]) -> float:
    started = time.perf_counter()
    done = grade(args)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"the reference did not pass {args}: {done.stdout[-1500:]}{done.stderr[-1500:]}")
    return seconds


def cold(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", "-m", "grader", *args], capture_output=True, text=True, cwd="/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--settle", type=float, default=40.0, help="seconds the warm grader draws ahead (default 40)")
    args = parser.parse_args()
    solutions = str(ROOT / "solutions")
    started = time.perf_counter()
    notebook._grade([solutions, "--json", "--task", "state.overwrite"])
    print(f"the warm grader's start and a first check, before it has drawn anything: {time.perf_counter() - started:.2f} s")
    time.sleep(args.settle)
    print(f"after {args.settle:g} s of drawing ahead; sandbox on; median of {args.runs} runs:")
    print(f"  {'target':<16} {'warm first':>10} {'warm again':>10} {'cold':>7} {'cold/warm':>10}")
    for target in TARGETS:
        options = [solutions, "--json", *notebook.target_options(target)]
        first = timed(notebook._grade, options)
        again = statistics.median(timed(notebook._grade, options) for _ in range(args.runs))
        cold_s = statistics.median(timed(cold, options) for _ in range(args.runs))
        print(f"  {target:<16} {first:9.2f}s {again:9.2f}s {cold_s:6.2f}s {cold_s / again:9.1f}x")


if __name__ == "__main__":
    main()
