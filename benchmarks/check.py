"""How long a notebook's check() takes: the warm grader (grader.warm) against a cold agstate-grade, on the reference.

    .venv/bin/python benchmarks/check.py [--runs 5]

One task of each part, then each whole part, graded with the sandbox on as a
notebook grades them: warm (a request to this process's warm grader, as a
kernel's second check() and later) and cold (a fresh `python -I -m grader`,
as every check() did before). Wall times vary with the machine's load:
compare the ratios of one run.
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader import notebook  # after the path: this checkout's grader

TARGETS = ["state.dedupe", "board.move", "events.append", "branches.laws", "state", "board", "events", "branches"]


def seconds(grade, args: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = grade(args)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            sys.exit(f"the reference did not pass {args}: {done.stdout[-1500:]}{done.stderr[-1500:]}")
    return statistics.median(times)


def cold(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", "-m", "grader", *args], capture_output=True, text=True, cwd="/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    started = time.perf_counter()
    notebook._grade([str(ROOT / "solutions"), "--json", "--task", "state.overwrite", "--seed", "1"])
    print(f"the warm grader's start and first check: {time.perf_counter() - started:.2f} s")
    print(f"median of {runs} runs, seed 1, sandbox on:")
    print(f"  {'target':<16} {'warm':>7} {'cold':>7} {'cold/warm':>10}")
    for target in TARGETS:
        args = [str(ROOT / "solutions"), "--json", *notebook.target_options(target), "--seed", "1"]
        warm_s, cold_s = seconds(notebook._grade, args, runs), seconds(cold, args, runs)
        print(f"  {target:<16} {warm_s:6.2f}s {cold_s:6.2f}s {cold_s / warm_s:9.1f}x")


if __name__ == "__main__":
    main()
