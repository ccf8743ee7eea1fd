"""The progress view, ``check()`` with no target, the first time in a fresh kernel, as learner-F met it.

    .venv/bin/python benchmarks/progress.py [--runs 3]

The workspace holds the released stubs of parts A to E and the reference's
part F (a learner who did part F alone). A first kernel runs
``check("pauses")``, as notebook 37 says to at the end of the part, and shuts
down. Then, each in a fresh kernel of this environment (the lab's kernel
configuration, as ``make lab`` installs it):

- ``check()``: the progress view (``grader.notebook.progress``): parts A to
  E are not started, part F was checked on these same files: nothing is
  graded. The goal: at most 5 s.
- ``check()`` with an empty cache: part F is graded, A to E are not.
- ``check(seed=...)``: every task graded, which is what ``check()`` did
  before (learner-F measured 55 to 61 s on a loaded machine).

Times are from the cell's execution to the kernel's idle, the kernel's own
start not included. Wall times vary with the machine's load: compare the
ratios of one run.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from jupyter_client.manager import KernelManager
from kernel import execute  # the same cell runner as benchmarks/kernel.py (beside this file, on sys.path)

ROOT = Path(__file__).resolve().parent.parent


def first_check(workspace: Path, cache: Path, code: str) -> float:
    """``code``'s seconds in a fresh kernel started in ``workspace``, with ``cache`` as the user's cache."""
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(cwd=str(workspace), env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        took, shown = execute(client, code)
        if not any("seed" in text for text in shown):
            sys.exit(f"{code} showed no scorecard: {shown}")
        return took
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="agstate-bench-progress-"))
    workspace, checked, empty = folder / "lab", folder / "cache-checked", folder / "cache-empty"
    shutil.copytree(ROOT / "agstate", workspace / "agstate", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "solutions" / "agstate" / "pauses.py", workspace / "agstate" / "pauses.py")
    cell = "from grader import check\ncheck({})"
    try:
        part_f = first_check(workspace, checked, cell.format('"pauses"'))
        figures = {"progress": [], "progress, nothing kept": [], "everything graded": []}
        for _ in range(args.runs):
            figures["progress"].append(first_check(workspace, checked, cell.format("")))
            shutil.rmtree(empty, ignore_errors=True)
            figures["progress, nothing kept"].append(first_check(workspace, empty, cell.format("")))
            figures["everything graded"].append(first_check(workspace, empty, cell.format("seed=1")))
    finally:
        shutil.rmtree(folder)
    print(f"a workspace with parts A-E as released and part F done; first check in a fresh kernel, median of "
          f"{args.runs} runs (check('pauses') before, in another kernel: {part_f:.2f} s)")
    for name, seconds in figures.items():
        print(f"  {name + ':':<26}{statistics.median(seconds):7.2f} s   (runs: {', '.join(f'{s:.2f}' for s in seconds)})")
    print(f"repeat: {sys.executable} benchmarks/progress.py --runs {args.runs}")


if __name__ == "__main__":
    main()
