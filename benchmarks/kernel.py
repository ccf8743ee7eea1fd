"""A notebook kernel's checks as a learner meets them: a fresh kernel, its first and third check(), its shutdown.

    .venv/bin/python benchmarks/kernel.py [--runs 3] [--target messages.upsert] [--after 0]

Each run starts a fresh kernel of this environment (the lab's kernel
configuration, ``grader.notebook.kernel``, as ``make lab`` installs it) in a
workspace holding the reference's ``agstate/``, waits until it is ready,
then, ``--after`` seconds later (0: a check cell run at once, as "run all"
on a notebook whose first cell checks), asks ``check(TARGET)`` three times.
It times the kernel's start, the first and the third check, the first
check's wait for the grader, and the shutdown of the kernel (as JupyterLab
asks it: a shutdown request, then waiting for the process to end), beside a
kernel of the same kind that ran no check. It also says which of the
grading engine's modules the kernel itself imported. Wall times vary with
the machine's load: compare the ratios of one run.
"""

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from jupyter_client.manager import KernelManager

ROOT = Path(__file__).resolve().parent.parent
REPORT = ("import sys; print(sorted(m for m in sys.modules if m.split('.')[0] == 'hypothesis' or "
          "m in ('grader.engine.registry', 'grader.engine.runner', 'grader.engine.checking', 'grader.sandbox.session')))")


def execute(client, code: str, timeout: float = 300) -> tuple[float, list[str]]:
    """Run ``code``; the seconds until the kernel is idle again, and the text it showed."""
    started = time.perf_counter()
    msg_id = client.execute(code)
    shown = []
    while True:
        message = client.get_iopub_msg(timeout=timeout)
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        content = message["content"]
        if message["msg_type"] in ("stream", "error"):
            shown.append(content.get("text") or "\n".join(content.get("traceback", [])))
        elif message["msg_type"] in ("display_data", "update_display_data", "execute_result"):
            shown.append(content["data"].get("text/html") or content["data"].get("text/plain", ""))
        elif message["msg_type"] == "status" and content["execution_state"] == "idle":
            return time.perf_counter() - started, shown


def run(workspace: Path, target: str | None, after: float) -> dict:
    manager = KernelManager(kernel_name="python3")
    began = time.perf_counter()
    manager.start_kernel(cwd=str(workspace))
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=120)
    figures = {"start": time.perf_counter() - began}
    if target is not None:
        time.sleep(after)
        code = f"from grader import check\ncheck({target!r})"
        figures["first"], shown = execute(client, code)
        figures["said starting"] = any("starting the grader" in text for text in shown)
        execute(client, code)
        figures["third"], shown = execute(client, code)
        if not any("seed" in text for text in shown):
            sys.exit(f"check({target!r}) showed no scorecard: {shown}")
        figures["engine in kernel"] = execute(client, REPORT)[1][-1].strip()
    else:
        execute(client, "1 + 1")
    client.stop_channels()
    began = time.perf_counter()
    manager.shutdown_kernel(now=False)  # a shutdown request, then wait for the process to end
    figures["shutdown"] = time.perf_counter() - began
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--target", default="messages.upsert", help="what check() grades (default messages.upsert)")
    parser.add_argument("--after", type=float, default=0.0, help="seconds between the kernel's start and the first check")
    args = parser.parse_args()
    workspace = Path(tempfile.mkdtemp(prefix="agstate-bench-kernel-"))
    shutil.copytree(ROOT / "solutions" / "agstate", workspace / "agstate")
    try:
        checked = [run(workspace, args.target, args.after) for _ in range(args.runs)]
        plain = [run(workspace, None, 0) for _ in range(args.runs)]
    finally:
        shutil.rmtree(workspace)

    def median(runs, key):
        return statistics.median(figures[key] for figures in runs)

    print(f"check({args.target!r}) {args.after:g} s after a fresh kernel is ready; median of {args.runs} runs")
    print(f"  kernel start:        {median(checked, 'start'):6.2f} s")
    print(f"  first check:         {median(checked, 'first'):6.2f} s  (said 'starting the grader…' in "
          f"{sum(f['said starting'] for f in checked)} of {args.runs})")
    print(f"  third check:         {median(checked, 'third'):6.2f} s")
    print(f"  shutdown after checks: {median(checked, 'shutdown'):6.2f} s; without a check: {median(plain, 'shutdown'):6.2f} s")
    print(f"  engine modules in the kernel after the checks: {checked[-1]['engine in kernel']}")


if __name__ == "__main__":
    main()
