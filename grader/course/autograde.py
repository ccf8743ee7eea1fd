"""nbgrader autograde with the lab's grader: no student cell is ever executed.

Why no kernel: a notebook kernel runs the student's cells as the instructor,
with the course folder, the gradebook and the lab's venv in reach, and a
kernel cannot be put in the grader's sandbox without also sandboxing
nbgrader. The check cells' scores never came from the kernel anyway. So
autograde here runs no cell at all:

- ``AuditCells`` (first sanitize step) compares the notebook as submitted
  with the released one and lists every edited, deleted, duplicated or
  invented graded cell (``grader.course.tampering``): logged, flagged in the
  gradebook, shown on the student's summary page;
- ``KeepSafeOutputs`` (instead of ``ClearOutput``) keeps the student's own
  saved outputs of ungraded cells, as text and images only, and nbconvert's
  ``SanitizeHTML`` cleans the HTML in the student's markdown: no script from
  a submission reaches the feedback or the instructor's formgrader;
- ``ScoreChecks`` (instead of ``Execute``) writes each check cell's outputs
  from the report of ``python -I -m grader`` on the submission, run from
  ``/`` in the grader's sandbox, with the course's seed, examples and
  timeout: the scorecard, then the task's points as the cell's value, which
  nbgrader records as partial credit. The whole class is graded in one batch
  (``--jobs``) started at the first notebook, while nbgrader goes on with its
  own work; each student's report is taken from that batch's log.

So a submission scores the same under ``nbgrader autograde`` as under
``agstate-grade --seed <the course's seed>`` on its submitted folder.
``agstate-course init`` writes the configuration that switches it on.
"""

import glob
import os
import shutil
from pathlib import Path

import nbformat
from nbconvert.preprocessors.sanitize import SanitizeHTML
from nbformat.v4 import new_output
from nbgrader.api import Gradebook
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Float, Integer, List, Unicode

from grader.authoring.assignment import check_grade_ids
from grader.catalog import MODULES, TASKS
from grader.course.class_batch import BackgroundBatch, package_digest
from grader.course.exchange import SUMMARY_ID
from grader.course.inspection import inspect_submission, irregular_entries
from grader.course.permissions import course_problems, reference_package
from grader.course.tampering import findings, restore
from grader.engine import DEFAULT_EXAMPLES, DEFAULT_TIMEOUT
from grader.reports.report import GRADER_ERROR, SANDBOX, Report, points
from grader.reports.safe import display_path
from grader.reports.scorecard import scorecard_html, student_page_html
from grader.sandbox import bubblewrap

__all__ = ["AuditCells", "KeepSafeOutputs", "SanitizeMarkdown", "ScoreChecks", "sanitize_steps", "autograde_steps", "SUMMARY_PAGE"]

SUMMARY_PAGE = f"{SUMMARY_ID}.html"  # written next to the notebooks; generate_feedback copies it into the feedback folder
_SAFE_DATA = ("text/plain", "image/png", "image/jpeg")  # what a submission's saved outputs may show
_TAMPERED: dict[tuple[str, str], dict[str, list[str]]] = {}  # (assignment, student) -> notebook -> findings


class AuditCells(NbGraderPreprocessor):
    """Lists what the submitted notebook changed in its graded cells, flags the notebook in the gradebook, and puts
    deleted or duplicated graded cells back in the released shape for nbgrader's own restoring steps."""

    def preprocess(self, nb, resources):
        student, assignment, notebook = (resources["nbgrader"][k] for k in ("student", "assignment", "notebook"))
        coursedir = CourseDirectory(config=self.config)
        released = Path(coursedir.format_path(coursedir.release_directory, ".", assignment)) / f"{notebook}.ipynb"
        found = []
        if released.exists():
            release = nbformat.read(released, as_version=4)
            found = findings(nb, release)
            restore(nb, release)
        _TAMPERED.setdefault((assignment, student), {})[notebook] = found
        for finding in found:
            self.log.warning("Tampering by student %r in %s.ipynb: %s", student, notebook, finding)
        if found:
            with Gradebook(resources["nbgrader"]["db_url"]) as gb:
                gb.find_submission_notebook(notebook, assignment, student).flagged = True
                gb.db.commit()
        return nb, resources


class KeepSafeOutputs(NbGraderPreprocessor):
    """The student's saved outputs of ungraded cells, as text and images; graded cells start empty."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        if cell.metadata.get("nbgrader", {}).get("grade") or cell.metadata.get("nbgrader", {}).get("locked"):
            cell.outputs, cell.execution_count = [], None
            return cell, resources
        kept = []
        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if kind == "stream" and isinstance(output.get("text"), str):
                kept.append(new_output("stream", name="stderr" if output.get("name") == "stderr" else "stdout",
                                       text=output["text"]))
            elif kind == "error":
                kept.append(new_output("error", ename=str(output.get("ename", "")), evalue=str(output.get("evalue", "")),
                                       traceback=[str(line) for line in output.get("traceback", [])]))
            elif kind in ("display_data", "execute_result"):
                data = {k: v for k, v in output.get("data", {}).items() if k in _SAFE_DATA and isinstance(v, str)}
                if data:
                    kept.append(new_output(kind, data=data, **({"execution_count": cell.get("execution_count")}
                                                               if kind == "execute_result" else {})))
        cell.outputs = kept
        return cell, resources


class SanitizeMarkdown(SanitizeHTML):
    """nbconvert's ``SanitizeHTML`` (bleach), switched on: no script or event handler survives in a student's
    markdown, which reaches the instructor's browser in the formgrader (whose templates do not honour
    ``HTMLExporter.sanitize_html``)."""

    enabled = Bool(True)


class ScoreChecks(NbGraderPreprocessor):
    """Writes every check cell's outputs from the sandboxed grader's report; runs no cell."""

    seed = Integer(0, help="randomization seed of every grader run (agstate-grade --seed)").tag(config=True)
    examples = Integer(DEFAULT_EXAMPLES, help="random examples per rule (agstate-grade --examples)").tag(config=True)
    grader_timeout = Float(DEFAULT_TIMEOUT, help="seconds per task (agstate-grade --timeout)").tag(config=True)
    parts = List(Unicode(), help="the parts graded (default: every part)").tag(config=True)
    labs = List(Unicode(), help="the parts graded: the old name of ScoreChecks.parts, read when parts is not set; "
                                "removed on 2027-03-01").tag(config=True)
    jobs = Integer(len(os.sched_getaffinity(0)), help="submissions graded at once (agstate-grade --jobs)").tag(config=True)
    seed_per_student = Bool(False, help="each student their own variant: a seed derived from seed and the student id "
                                        "(agstate-grade --seed-per-student)").tag(config=True)

    def preprocess(self, nb, resources):
        student, assignment = resources["nbgrader"]["student"], resources["nbgrader"]["assignment"]
        folder = Path(resources["metadata"]["path"])  # the autograded copy
        report = _class_batch(self, student, assignment).report(student, folder)
        by_grade_id = check_grade_ids()
        for cell in nb.cells:
            target = by_grade_id.get(cell.metadata.get("nbgrader", {}).get("grade_id"))
            if target is not None and cell.metadata["nbgrader"].get("grade"):
                cell.outputs = _check_outputs(report, target, cell.get("execution_count"))
        # nbgrader's release_feedback hands the student every top-level .html of the feedback folder, which
        # generate_feedback copies from here: a submitted page, or a symbolic link the copy followed (to the
        # gradebook, say), would go back to the student. Only the notebooks' pages and the summary may.
        for page in folder.glob("*.html"):
            if page.name != SUMMARY_PAGE:
                self.log.warning("Removing %s from %s's autograded folder: feedback pages are made, not submitted",
                                 page.name, student)
                page.unlink()
        (folder / SUMMARY_PAGE).write_text(student_page_html(student, report, _TAMPERED.get((assignment, student), {})))
        return nb, resources

    def settings(self) -> list[str]:
        parts = self.parts or self.labs or list(MODULES)
        return ["--seed", str(self.seed), "--examples", str(self.examples), "--timeout", repr(self.grader_timeout),
                "--task", *[task_id for task_id, task in TASKS.items() if task.part in parts],
                *(["--seed-per-student"] if self.seed_per_student else [])]

_BATCHES: dict[tuple, "_ClassGrading"] = {}


class _ClassGrading:
    """The reports of every submission this autograde run will grade, from one batch."""

    def __init__(self, step: ScoreChecks, assignment: str, first: str):
        reason = bubblewrap.unavailable()
        if reason is not None:  # never a grade from learner code run outside the sandbox
            raise RuntimeError(f"autograde needs the grader's sandbox: {reason}")
        self.step, self.coursedir = step, CourseDirectory(config=step.config)
        self.assignment, self.single, self.inspected = assignment, {}, set()
        for problem in course_problems(self.coursedir.root, step.config.get("Exchange", {}).get("root")):
            step.log.warning("Permissions: %s", problem)
        self.batch = BackgroundBatch(self._submissions(first), step.settings(), step.jobs)

    def _submissions(self, first: str) -> list[Path]:
        """The submitted folders nbgrader will autograde in this run (its own choice of students and --force);
        ``first``, the student it is on, has an autograded folder already: the one nbgrader just made."""
        coursedir = self.coursedir  # --force lands on Autograde or on its base class, as traitlets resolves it
        force = any(self.step.config.get(section, {}).get("force", False) for section in ("Autograde", "BaseConverter"))
        excluded = {s.strip() for s in coursedir.student_id_exclude.split(",") if s.strip()}
        pattern = coursedir.format_path(coursedir.submitted_directory, coursedir.student_id, self.assignment)
        chosen = []
        for path in sorted(Path(p) for p in glob.glob(pattern)):
            student = path.parent.name
            done = Path(coursedir.format_path(coursedir.autograded_directory, student, self.assignment))
            if path.is_dir() and student not in excluded and (force or student == first or not done.exists()):
                chosen.append(path)
        return chosen

    def report(self, student: str, autograded: Path) -> Report:
        submitted = Path(self.coursedir.format_path(self.coursedir.submitted_directory, student, self.assignment))
        self._inspect(student, submitted, autograded)
        key, digest = display_path(str(submitted)), package_digest(autograded / "agstate")
        report = self.batch.report(key) if self.batch.digests.get(key) == digest else None
        if report is not None and (doubtful := _grader_failures(report)):  # the grader's, or a time-out under load
            self.step.log.warning("Grading %s again on its own: %s", student, doubtful)
            report = None
        if report is None:
            report = self.single.get((student, digest))
        if report is None:  # not in the class batch (or changed since, or failed there): graded on its own
            self.step.log.info("Grading %s on its own", autograded)
            single = BackgroundBatch([autograded], self.step.settings(), 1)
            report = single.report(display_path(str(autograded)))
            problem = single.problem() if report is None else None
            single.close()
            if report is None:
                raise RuntimeError(f"the grader could not grade {autograded}: {problem}")
            self.single[(student, digest)] = report
        if report.get("sandbox") != SANDBOX:
            raise RuntimeError(f"{autograded} was graded without the sandbox; its scores are not used")
        if failed := [task["id"] for task in report["tasks"] if task["status"] == GRADER_ERROR]:
            # Raised, nbgrader records no score for this student: a failure of the grader is never a student's 0.
            raise RuntimeError(f"the grader failed on {', '.join(failed)} of {student} (grader_error, twice): no score is "
                               f"recorded; run nbgrader autograde --student {student} --force again")
        return report

    def _inspect(self, student: str, submitted: Path, autograded: Path) -> None:
        """Names what the submitted folder holds beyond plain files, once per student, and takes out of the autograded
        copy what nbgrader's copy made of a link (the linked file's contents): graded, and shown, is what was handed in."""
        if student in self.inspected:
            return
        self.inspected.add(student)
        for finding in inspect_submission(submitted, reference_package()):
            self.step.log.warning("Submission of student %r: %s", student, finding)
        for relative, _ in irregular_entries(submitted):
            copy = autograded / relative
            if copy.is_dir() and not copy.is_symlink():
                shutil.rmtree(copy)
            elif copy.exists() or copy.is_symlink():
                copy.unlink()


def _grader_failures(report: Report) -> str:
    """What in ``report`` may be the grader's rather than the student's: grader errors, and time-outs."""
    return ", ".join(f"{task['id']} {task['status']}" for task in report["tasks"] if task["status"] in (GRADER_ERROR, "timeout"))


def _class_batch(step: ScoreChecks, student: str, assignment: str) -> _ClassGrading:
    key = (assignment, tuple(step.settings()), CourseDirectory(config=step.config).root)
    if key not in _BATCHES:
        _BATCHES[key] = _ClassGrading(step, assignment, student)
    return _BATCHES[key]


# A graded page names no seed: with the grading seed, a classmate's page would replay the graded examples before a late
# submission or a regrade (a student's own check() shows their practice seed).
GRADED_FOOTER = "graded on the course's own examples; the counterexamples above are those that decided"


def _check_outputs(report: Report, target: str, execution_count) -> list:
    """A check cell's outputs: the scorecard, then the points as the cell's value."""
    tasks = [task for task in report["tasks"] if target in (task["id"], task["part"])]
    if not tasks:
        reason = f"the grader's report has no task {target!r}"
        return [new_output("error", ename="GraderError", evalue=reason, traceback=[f"GraderError: {reason}"])]
    score, max_score = points(tasks)
    part = {**report, "tasks": tasks, "score": score, "max_score": max_score}
    summary = f"{part['score']:g} / {part['max_score']:g} — " + ", ".join(f"{t['id']} {t['status']}" for t in tasks)
    return [new_output("display_data", data={"text/html": scorecard_html(part, footer=GRADED_FOOTER), "text/plain": summary}),
            new_output("execute_result", data={"text/plain": repr(float(part["score"]))},
                       execution_count=execution_count)]


def sanitize_steps() -> list:
    """nbgrader's sanitize steps, audited first, with ``ClearOutput`` replaced by ``KeepSafeOutputs`` and
    ``SanitizeMarkdown``."""
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import ClearOutput

    default = Autograde.class_traits()["sanitize_preprocessors"].default()
    safe = [KeepSafeOutputs, SanitizeMarkdown]
    return [AuditCells, *[step for old in default for step in (safe if old is ClearOutput else [old])]]


def autograde_steps() -> list:
    """nbgrader's autograde steps, with ``Execute`` replaced by ``ScoreChecks``."""
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import Execute

    return [ScoreChecks if step is Execute else step for step in Autograde.class_traits()["autograde_preprocessors"].default()]
