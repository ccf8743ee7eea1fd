"""``check()`` for notebooks: grade the workspace on disk in another process, show a scorecard.

The grading runs outside the kernel — in the kernel's warm grader
(``grader.notebook.warm``), else a new ``python -m grader`` process — so it always
sees the files as saved (no stale imports in the kernel) and the learner's
code never runs inside the notebook's kernel. The kernel itself imports only
the catalog and the scorecard (``grader.catalog``, ``grader.reports.scorecard``):
no grading engine, no Hypothesis.

The lab's kernel starts the warm grader as it starts (``grader.notebook.kernel``),
so by a notebook's first check cell it has imported the grader, started its
zygote and drawn that notebook's examples; a check asked before it is ready
says "starting the grader…" while it waits. The warm grader runs in a
session of its own: the kernel's interrupt and shutdown signals are not its
(it ends when the kernel's end of its pipe closes), so a kernel that checked
shuts down and restarts as fast as one that did not.
"""

import html
import json
import os
import select
import subprocess
import sys
from pathlib import Path

from grader.catalog import target_options
from grader.i18n import LANGUAGES, N_, _
from grader.notebook import remote_check
from grader.reports.report import Report
from grader.reports.scorecard import render_text, scorecard_html, status_text

__all__ = ["check", "grade", "Points", "warm_up", "workspace", "target_options", "scorecard_html", "STARTING", "GRADING"]

STARTING = N_("starting the grader…")  # said in the learner's language: _(STARTING)
# The progress view's last line: how it was made, and how to grade a part again.
PROGRESS = N_('check() (parts not started, and parts checked before on these same files, are shown without grading them '
              'again; check("<part>") grades one now)')
GRADING = N_("grading…")


def workspace() -> Path:
    """The folder whose ``agstate/`` is graded: $AGSTATE_WORKSPACE, else the notebook's folder or its parent (or, for a
    translated notebook of the lab's repository, ``notebooks/es/``, the parent of that).

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
    translated = (here.parent.parent,) if here.name in LANGUAGES and here.parent.name == "notebooks" else ()
    return next((folder for folder in (here, here.parent, *translated) if (folder / "agstate").is_dir()), here)


class Points(float):
    """The points ``check()`` gave, a float to compute with; Jupyter shows it as nothing, as the scorecard says them."""

    def _ipython_display_(self):
        pass  # its display is the scorecard above it: no bare "Out: 15.0" under every check cell


_WARM: subprocess.Popen | None = None  # this kernel's warm grader (grader.notebook.warm)
_READY = [False]  # whether _WARM has said it is ready (its first line)


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
        # A session of its own: the kernel's interrupt (SIGINT to its process group) and ipykernel's shutdown, which
        # signals and then waits for every process of the kernel's group, are not the warm grader's business.
        _WARM = subprocess.Popen([sys.executable, "-I", "-m", "grader.notebook.warm"], cwd="/", text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        _READY[0] = False
    return _WARM


def _await_ready(warm: subprocess.Popen, slot: "_Slot | None") -> None:
    """Read the warm grader's first line ("ready"); while it has not come, ``slot`` says "starting the grader…"."""
    if _READY[0]:
        return
    starting = slot is not None and not select.select([warm.stdout], [], [], 0)[0]
    if starting:
        slot.say(_(STARTING))
    if json.loads(warm.stdout.readline()).get("ready") is not True:
        raise ValueError("the warm grader did not say it was ready")
    _READY[0] = True
    if starting:
        slot.say(_(GRADING))  # a whole lab's first check grades for seconds more: no longer "starting"


class _Slot:
    """Where a check's scorecard goes: in a kernel one display, which says "starting the grader…" until then."""

    def __init__(self):
        self._handle = None

    def say(self, words: str) -> None:
        """Show ``words`` in the slot (in a kernel; a terminal gets the first only)."""
        if not _in_kernel():
            if self._handle is None:
                print(words, flush=True)
                self._handle = False
            return
        from IPython.display import HTML, display

        shown = HTML(f"<p><i>{html.escape(words)}</i></p>")
        if self._handle:
            self._handle.update(shown)
        else:
            self._handle = display(shown, display_id=True)

    def show(self, report: Report, repeat: str | None = None, footer: str | None = None) -> None:
        if not _in_kernel():
            print(render_text(report, footer=footer) + (f"\n{repeat}" if repeat else ""))
            return
        from IPython.display import HTML, display

        if self._handle:
            self._handle.update(HTML(scorecard_html(report, repeat, footer=footer)))
        else:
            display(HTML(scorecard_html(report, repeat, footer=footer)))

    def failed(self) -> None:
        if self._handle:
            from IPython.display import HTML

            self._handle.update(HTML(""))


def _grade(args: list[str], slot: _Slot | None = None) -> subprocess.CompletedProcess:
    """``agstate-grade args``: in the warm grader when there is one, else (or if it has gone) in a cold process."""
    warm = warm_up()
    if warm is not None:
        try:
            warm.stdin.write(json.dumps({"args": args}) + "\n")
            warm.stdin.flush()
            _await_ready(warm, slot)  # its first line; meanwhile it has begun this request
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


def check(target: str | None = None, *, seed: int | None = None) -> float | None:
    """Grade ``target`` (a task id like "state.dedupe", a part like "state", or everything).

    With no target and no seed, the progress view: parts not started and parts
    checked before on these same files are shown without grading them again
    (``grader.notebook.progress``); the others are graded.
    """
    options = target_options(target)  # an unknown target is refused here, whoever grades
    if remote_check.grades_on_service():
        return _check_on_service(target, seed)
    # Imported here, past the service: the course kit grades on the service and ships no progress view of its own.
    from grader.notebook import progress

    folder = workspace()
    slot = _Slot()
    if target is None and seed is None and not os.environ.get("NBGRADER_EXECUTION"):
        to_grade, known = progress.plan(folder)
        graded = _graded(folder, [arg for part in to_grade for arg in ("--part", part)], slot) if to_grade else None
        report = progress.assemble(folder, known, graded)
        slot.show(report, _(PROGRESS))
        return Points(report["score"])
    report = _graded(folder, [*options, *(["--seed", str(seed)] if seed is not None else [])], slot)
    slot.show(report)
    if os.environ.get("NBGRADER_EXECUTION") == "validate":
        # `nbgrader validate` shows a graded cell's stderr, and otherwise only "Partial credit": say what is wrong.
        for task in report["tasks"]:
            if task["status"] != "passed":
                print(f"{task['id']}: {task['score']:g} / {task['max_score']:g} {status_text(task['status'])}: "
                      f"{task['feedback']}", file=sys.stderr)
    if os.environ.get("NBGRADER_EXECUTION"):
        return report["score"]  # a plain float, shown: nbgrader reads a test cell's last value as its partial credit
    return Points(report["score"])


def _graded(folder: Path, options: list[str], slot: _Slot) -> dict:
    """``agstate-grade folder --json options``'s report, kept for the progress view (``progress.remember``)."""
    try:
        done = _grade([str(folder), "--json", *options], slot)
    except BaseException:  # interrupted: "starting the grader…" goes with it
        slot.failed()
        raise
    try:
        report = json.loads(done.stdout)
    except ValueError:
        report = None
    if not isinstance(report, dict) or "tasks" not in report:
        slot.failed()
        raise RuntimeError(_("the grader could not run: {why}").format(why=done.stderr.strip()))
    from grader.notebook import progress  # a local check's: see check()

    progress.remember(folder, report)
    return report


def _check_on_service(target: str | None, seed: int | None) -> float | None:
    """A graded course's check: the course's grading service grades, with the student's practice seed; same scorecard."""
    slot = _Slot()
    url = remote_check.service_url()
    if url is None:  # the course kit, with no service named: one line, not a traceback
        slot.say(_(remote_check.NO_SERVICE))
        return None
    if seed is not None:
        slot.say(_("the course's grading service chooses the seed (your practice seed): seed= is not used"))
        slot = _Slot()
    for sentence in remote_check.left_at_home(workspace()):  # what the service cannot take, said before it says "missing"
        _Slot().say(sentence)
    slot.say(_(GRADING))
    try:
        report = remote_check.grade_on_service(url, workspace(), target)
    except remote_check.ServiceRefusal as refusal:
        slot.say(str(refusal))
        return None
    except BaseException:
        slot.failed()
        raise
    slot.show(report, footer=_("seed {seed}, your practice seed: the service's, the same examples at every check").format(
        seed=report["seed"]))
    return Points(report["score"])


def grade(target: str | None = None, *, folder: Path | str | None = None, seed: int | None = None) -> dict:
    """The report ``check(target)`` would show, as data (the JSON report), for ``folder``'s ``agstate/`` (default: your
    workspace): graded here, or on the course's grading service, which chooses the seed (a student's practice seed)."""
    folder = workspace() if folder is None else Path(folder).resolve()
    options = target_options(target)
    if remote_check.grades_on_service():
        url = remote_check.service_url()
        if url is None:
            raise RuntimeError(_(remote_check.NO_SERVICE))
        return remote_check.grade_on_service(url, folder, target)
    done = _grade([str(folder), "--json", *options, *(["--seed", str(seed)] if seed is not None else [])])
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise RuntimeError(_("the grader could not run: {why}").format(why=done.stderr.strip())) from None


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None
