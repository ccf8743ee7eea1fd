"""Lab timings: agstate-grade on the reference, part by part and whole, and each notebook run against it.

    .venv/bin/python benchmarks/lab.py [--runs 5] [--skip-notebooks]

Wall times vary with the machine's load: compare figures from one run.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def time_grader(runs: int, part: str | None) -> list[float]:
    """Seconds for `agstate-grade solutions [--part PART]` in a fresh process, once per run (a new seed each)."""
    times = []
    for seed in range(1, runs + 1):
        started = time.perf_counter()
        command = [sys.executable, "-m", "grader", str(ROOT / "solutions"), "--json", "--seed", str(seed)]
        done = subprocess.run(command + (["--part", part] if part else []), capture_output=True, text=True, cwd=ROOT)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            sys.exit(f"the reference did not get full marks with seed {seed}: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return times


def time_notebooks() -> dict[str, float]:
    import nbformat
    from nbclient import NotebookClient

    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "solutions"), str(ROOT)])
    os.environ["MPLBACKEND"] = "Agg"
    times = {}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        started = time.perf_counter()
        NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
        times[path.name] = time.perf_counter() - started
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skip-notebooks", action="store_true")
    args = parser.parse_args()
    from grader.engine.registry import MODULES

    print(f"agstate-grade solutions (default settings), {args.runs} fresh runs each:")
    for part in [*MODULES, None]:
        grader = time_grader(args.runs, part)
        label = f"--part {part}" if part else "every part"
        print(f"  {label:<16} median {statistics.median(grader):5.2f} s   min {min(grader):5.2f} s   max {max(grader):5.2f} s")
    if not args.skip_notebooks:
        print("notebooks, executed top to bottom against the reference (kernel start included):")
        for name, seconds in time_notebooks().items():
            print(f"  {name:<32} {seconds:6.1f} s")


if __name__ == "__main__":
    main()
