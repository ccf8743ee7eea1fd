"""``check()`` for notebooks: grade the workspace on disk in a fresh process, show a scorecard.

The grading runs in a new ``python -m grader`` process, so it always sees the
files as saved (no stale imports in the kernel) and the learner's code never
runs inside the notebook's kernel.
"""

import html
import json
import os
import subprocess
import sys
from pathlib import Path

from grader.output import ALSO, further_failing
from grader.tasks import MODULES, TASKS, part_title

__all__ = ["check", "Points", "warm_up", "workspace", "target_options", "scorecard_html"]

_STATUS_MARK = {"passed": "✅", "failed": "❌", "not_implemented": "⬜", "error": "💥", "timeout": "⏱", "crashed": "💀"}


def workspace() -> Path:
    """The folder whose ``agstate/`` is graded: $AGSTATE_WORKSPACE, else the notebook's folder or its parent.

    The notebook's folder is the kernel's working directory: a released
    assignment holds its notebooks and ``agstate/`` side by side; the lab's
    repository holds ``notebooks/`` next to ``agstate/``. Where neither has an
    ``agstate/``, the notebook's folder is graded and the grader says the
    package is missing, rather than grading some other ``agstate`` that Python
    could import (the lab's own stubs, installed for development).
    """
    if os.environ.get("AGSTATE_WORKSPACE"):
        return Path(os.environ["AGSTATE_WORKSPACE"]).resolve()
    here = Path.cwd().resolve()
    return next((folder for folder in (here, here.parent) if (folder / "agstate").is_dir()), here)


class Points(float):
    """The points ``check()`` gave, a float to compute with; Jupyter shows it as nothing, as the scorecard says them."""

    def _ipython_display_(self):
        pass  # its display is the scorecard above it: no bare "Out: 15.0" under every check cell


_WARM: subprocess.Popen | None = None  # this kernel's warm grader (grader.warm), started by the first check()


def warm_up() -> subprocess.Popen | None:
    """Start this kernel's warm grader if it is not running; it imports the grader and LangGraph meanwhile.

    None under nbgrader (``NBGRADER_EXECUTION``): autograde and validate grade
    with a cold process each, and leave nothing running behind them.
    """
    global _WARM
    if os.environ.get("NBGRADER_EXECUTION"):
        return None
    if _WARM is None or _WARM.poll() is not None:
        # -I and cwd="/": neither the workspace nor PYTHON* variables can put another "grader" in front of this one.
        _WARM = subprocess.Popen([sys.executable, "-I", "-m", "grader.warm"], cwd="/", text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return _WARM


def _grade(args: list[str]) -> subprocess.CompletedProcess:
    """``agstate-grade args``: in the warm grader when there is one, else (or if it has gone) in a cold process."""
    warm = warm_up()
    if warm is not None:
        try:
            warm.stdin.write(json.dumps({"args": args}) + "\n")
            warm.stdin.flush()
            reply = json.loads(warm.stdout.readline())
            return subprocess.CompletedProcess(args, reply["returncode"], reply["stdout"], reply["stderr"])
        except (OSError, ValueError, KeyError):
            warm.kill()  # gone or garbled: the next check() starts a new one; this one grades cold
        except BaseException:
            # Interrupted (the kernel's stop button) while it grades: its reply would answer the next check(), so
            # this warm grader goes, and the next check() starts another.
            warm.kill()
            raise
    # -I: neither the working directory nor PYTHON* variables can put another "grader" in front of this one.
    return subprocess.run([sys.executable, "-I", "-m", "grader", *args], capture_output=True, text=True)


def check(target: str | None = None, *, seed: int | None = None) -> float:
    """Grade ``target`` (a task id like "state.dedupe", a part like "state", or everything)."""
    args = [str(workspace()), "--json", *target_options(target)]
    if seed is not None:
        args += ["--seed", str(seed)]
    done = _grade(args)
    if done.returncode == 2 or not done.stdout.strip():
        raise RuntimeError(f"the grader could not run: {done.stderr.strip()}")
    report = json.loads(done.stdout)
    _show(report)
    if os.environ.get("NBGRADER_EXECUTION") == "validate":
        # `nbgrader validate` shows a graded cell's stderr, and otherwise only "Partial credit": say what is wrong.
        for task in report["tasks"]:
            if task["status"] != "passed":
                print(f"{task['id']}: {task['score']:g} / {task['max_score']:g} {task['status'].replace('_', ' ')}: "
                      f"{task['feedback']}", file=sys.stderr)
    if os.environ.get("NBGRADER_EXECUTION"):
        return report["score"]  # a plain float, shown: nbgrader reads a test cell's last value as its partial credit
    return Points(report["score"])


def target_options(target: str | None) -> list[str]:
    """The ``agstate-grade`` options that grade ``target``: a task id, a part, or (None) everything."""
    if target is None:
        return []
    if target in TASKS:
        return ["--task", target]
    if target in MODULES:
        return ["--part", target]
    raise ValueError(f"unknown task or part {target!r}; tasks: {', '.join(TASKS)}")


def _show(report: dict) -> None:
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(HTML(scorecard_html(report)))
    else:
        from grader.cli import render_text

        print(render_text(report))


def _others(task: dict) -> str:
    """A failing task's further failing rules, each in full, folded under a line saying how many."""
    broken = further_failing(task.get("rules", []))
    if not broken:
        return ""
    items = "".join(f"<li><b>{html.escape(rule['rule'])}</b>: {html.escape(rule['feedback'])}</li>" for rule in broken)
    return (f"<details><summary>{len(broken)} more rule{'s' if len(broken) > 1 else ''} not passing</summary>"
            f"<ol start='2'>{items}</ol></details>")


def _status_word(status: str) -> str:
    return {"not_implemented": "not started", "failed": "failing"}.get(status, status.replace("_", " "))


def scorecard_html(report: dict, repeat: str | None = None) -> str:
    """The scorecard as an HTML table: a row per task, its notebook, points, status and feedback; then where to go next.

    A report of several parts (``check()`` with no target, the progress view)
    gets a row per part, with its points, above the part's tasks.
    """
    from grader.cli import next_step

    repeat = repeat or f"check(..., seed={report['seed']})"
    rows, part = [], None
    several = len({TASKS[t["id"]].part for t in report["tasks"] if t["id"] in TASKS}) > 1
    for task in report["tasks"]:
        known = TASKS.get(task["id"])
        if several and known is not None and known.part != part:
            part = known.part
            mine = [t for t in report["tasks"] if t["id"] in TASKS and TASKS[t["id"]].part == part]
            rows.append(f"<tr><th colspan='3' style='text-align:left'>{html.escape(part_title(part))}</th>"
                        f"<th>{sum(t['score'] for t in mine):g} / {sum(t['max_score'] for t in mine):g}</th>"
                        "<th colspan='2'></th></tr>")
        feedback = "" if task["status"] == "passed" else html.escape(task["feedback"].split(ALSO)[0]) + _others(task)
        notebook = html.escape(known.notebook) if known is not None else ""
        rows.append(
            f"<tr><td>{_STATUS_MARK.get(task['status'], '')}</td><td><code>{task['id']}</code></td><td>{notebook}</td>"
            f"<td>{task['score']:g} / {task['max_score']:g}</td><td>{_status_word(task['status'])}</td>"
            f"<td style='text-align:left'>{feedback}</td></tr>"
        )
    ahead = "".join(f"<p><b>{html.escape(line)}</b></p>" for line in next_step(report["tasks"]))
    warning = ""
    if report.get("sandbox") == "none":
        warning = ("<p><b>Graded without a sandbox:</b> your code ran with your own rights. Install bubblewrap "
                   "(<code>apt-get install bubblewrap</code>) for a grade an instructor would give.</p>")
    return warning + (
        "<table><thead><tr><th></th><th>task</th><th>notebook</th><th>points</th><th>status</th>"
        "<th style='text-align:left'>feedback</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>{ahead}"
        f"<p><b>{report['score']:g} / {report['max_score']:g}</b> — seed {report['seed']} "
        f"(repeat with <code>{html.escape(repeat)}</code>)</p>"
    )
