"""nbgrader autograde with the lab's grader: check cells are scored outside the kernel.

``nbgrader autograde`` runs each notebook in a kernel that also runs the
student's code, so a score computed in that kernel can be faked (a patched
``check``, an object equal to everything) or spoiled (any stderr output, such
as a LangGraph warning, zeroes a cell). ``GradedExecute`` replaces nbgrader's
``Execute``:

1. before a notebook runs, it grades the submission's files with
   ``python -m grader`` in a fresh process, with the course's seed, examples
   and timeout (once per submission: the report is reused by its other
   notebooks while the files are unchanged);
2. it runs the notebook as nbgrader does; a kernel that dies (``os._exit`` in
   the student's code) no longer fails the whole submission;
3. it writes every check cell's outputs from that report: the scorecard the
   student sees in the feedback, then the task's points as the cell's value,
   which nbgrader records as partial credit.

So a submission scores the same under ``nbgrader autograde`` as under
``agstate-grade --seed <the course's seed>``. ``agstate-course init`` writes
the configuration that switches it on.
"""

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from nbclient.exceptions import DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Float, Integer, List, Unicode

from grader.assignment import check_target
from grader.notebook import SCORED_OUTSIDE, scorecard_html, target_options
from grader.runner import DEFAULT_EXAMPLES, DEFAULT_TIMEOUT
from grader.tasks import TASKS

__all__ = ["GradedExecute", "autograde_preprocessors"]

# submission directory, settings and file digest -> report; one grader run per submission
_REPORTS: dict[tuple, dict] = {}


class GradedExecute(Execute):
    """nbgrader's Execute, with check cells scored by a grader run outside the kernel."""

    seed = Integer(0, help="randomization seed of every grader run (agstate-grade --seed)").tag(config=True)
    examples = Integer(DEFAULT_EXAMPLES, help="random examples per rule (agstate-grade --examples)").tag(config=True)
    grader_timeout = Float(DEFAULT_TIMEOUT, help="seconds per task (agstate-grade --timeout)").tag(config=True)
    labs = List(Unicode(), help="the parts graded (default: every part present)").tag(config=True)

    def preprocess(self, nb, resources, km=None):
        report = self._report(Path(resources["metadata"]["path"]))
        previous = os.environ.get(SCORED_OUTSIDE)
        os.environ[SCORED_OUTSIDE] = "1"  # the kernel inherits it: check() there skips its own grading
        try:
            nb, resources = super().preprocess(nb, resources, km)
        except DeadKernelError as exc:
            self.log.warning("The kernel died while running %s (%s); its check cells are scored all the same.",
                             resources["metadata"].get("name"), exc)
        finally:
            if previous is None:
                os.environ.pop(SCORED_OUTSIDE, None)
            else:
                os.environ[SCORED_OUTSIDE] = previous
        for cell in nb.cells:
            target = check_target(cell)
            if target is not None:
                cell.outputs = _check_outputs(report, target, cell.get("execution_count"), self._repeat)
        return nb, resources

    def _repeat(self, target: str) -> str:
        """The command a student runs in their workspace to see the same report."""
        command = " ".join(["agstate-grade", ".", *target_options(target), "--seed", str(self.seed)])
        if self.examples != DEFAULT_EXAMPLES:
            command += f" --examples {self.examples}"
        if self.grader_timeout != DEFAULT_TIMEOUT:
            command += f" --timeout {self.grader_timeout:g}"
        return command

    def _report(self, submission: Path) -> dict:
        key = (str(submission.resolve()), self.seed, self.examples, self.grader_timeout, tuple(self.labs),
               _digest(submission / "agstate"))
        if key not in _REPORTS:
            _REPORTS[key] = self._grade(submission)
        return _REPORTS[key]

    def _grade(self, submission: Path) -> dict:
        # -I, and a working directory no student can write: a grader/ package in the course folder is never imported.
        command = [sys.executable, "-I", "-m", "grader", str(submission.resolve()), "--json", "--seed", str(self.seed),
                   "--examples", str(self.examples), "--timeout", str(self.grader_timeout), "--jobs", "1"]
        tasks = [task_id for task_id, task in TASKS.items() if task.lab in self.labs]
        if tasks:
            command += ["--task", *tasks]
        self.log.info("Grading %s outside the kernel: %s", submission, " ".join(command[1:]))
        done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, cwd="/")
        try:
            return json.loads(done.stdout)
        except json.JSONDecodeError:
            reason = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
            self.log.error("The grader could not grade %s: %s", submission, reason[0])
            return {"error": f"the grader could not grade this submission: {reason[0]}", "tasks": []}


def _digest(package: Path) -> str:
    """Content digest of the submission's package: a changed file means a new grader run."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")) if package.is_dir() else []:
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _check_outputs(report: dict, target: str, execution_count, repeat: Callable[[str], str]) -> list:
    """A check cell's outputs: the scorecard, then the points as the cell's value."""
    tasks = [task for task in report["tasks"] if target in (task["id"], task["lab"])]
    if not tasks:
        reason = report.get("error") or f"the grader's report has no task {target!r}"
        return [new_output("error", ename="GraderError", evalue=reason, traceback=[f"GraderError: {reason}"])]
    part = {**report, "tasks": tasks, "score": sum(t["score"] for t in tasks),
            "max_score": sum(t["max_score"] for t in tasks)}
    html = scorecard_html(part, repeat=repeat(target))
    summary = f"{part['score']:g} / {part['max_score']:g} — " + ", ".join(f"{t['id']} {t['status']}" for t in tasks)
    return [new_output("display_data", data={"text/html": html, "text/plain": summary}),
            new_output("execute_result", data={"text/plain": repr(float(part["score"]))},
                       execution_count=execution_count)]


def autograde_preprocessors() -> list:
    """nbgrader's autograde steps, with ``Execute`` replaced by ``GradedExecute``."""
    from nbgrader.converters import Autograde

    return [GradedExecute if step is Execute else step for step in Autograde.class_traits()["autograde_preprocessors"].default()]
