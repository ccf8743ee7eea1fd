"""``agstate-course audit``: does the gradebook hold what the grader gives, and did anyone tamper?

Run from the instructor's side after ``nbgrader autograde``. For every
submitted folder of the assignment it

1. lists the changes to graded cells in each submitted notebook
   (``grader.course.tampering``), and what the submission holds beyond plain
   files, in the submitted folder and in the student's inbound folders of the
   exchange (a symbolic link there is what nbgrader's own collect follows), the
   files changed after the submission's timestamp, and the exercise modules
   equal to the reference solution (``grader.course.inspection``);
2. grades the submitted folders with ``agstate-grade`` at the course's seed,
   examples and timeout (in the sandbox, as autograde does);
3. reads every check cell's score in nbgrader's gradebook (a manual
   override and extra credit included) and compares it with the grader's;
   a task the grader itself failed on is said to be the grader's, never
   compared;
4. lists what other accounts can read or write of the course
   (``grader.course.permissions``).

Every difference and every finding is printed; the exit status is 1 when
there is any, so the audit can gate an export.
"""

import glob
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.coursedir import CourseDirectory
from traitlets.config import PyFileConfigLoader

from grader.authoring.assignment import check_grade_ids
from grader.course.autograde import ScoreChecks
from grader.course.class_batch import BackgroundBatch
from grader.course.inbound import inbound_submissions
from grader.course.inspection import inspect_submission, irregular_entries
from grader.course.permissions import course_problems, reference_package
from grader.course.tampering import findings
from grader.reports.report import GRADER_ERROR
from grader.reports.safe import display_path

__all__ = ["Audit", "audit_course", "run"]


@dataclass
class Audit:
    assignment: str
    seed: int
    students: list[str] = field(default_factory=list)
    problems: dict[str, list[str]] = field(default_factory=dict)  # student -> sentences
    permissions: list[str] = field(default_factory=list)  # what other accounts can reach, each with its fix

    def add(self, student: str, sentence: str) -> None:
        self.problems.setdefault(student, []).append(sentence)


class AuditError(Exception):
    pass


def audit_course(directory: Path, assignment: str | None = None) -> Audit:
    """Audit one assignment of the course in ``directory`` (the folder holding nbgrader_config.py)."""
    if not (directory / "nbgrader_config.py").is_file():
        raise AuditError(f"{directory} has no nbgrader_config.py; give the course folder agstate-course init wrote")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(directory)).load_config()
    coursedir, scoring = CourseDirectory(config=config), ScoreChecks(config=config)
    assignment = assignment or _only_assignment(config)
    released = Path(coursedir.format_path(coursedir.release_directory, ".", assignment))
    if not released.is_dir():
        raise AuditError(f"{released} does not exist; run nbgrader generate_assignment {assignment} first")
    pattern = coursedir.format_path(coursedir.submitted_directory, "*", assignment)
    submitted = {path.parent.name: path for path in sorted(Path(p) for p in glob.glob(pattern)) if path.is_dir()}
    audit = Audit(assignment, scoring.seed, list(submitted))
    for student, folder in submitted.items():
        for release in sorted(released.glob("*.ipynb")):
            mine = folder / release.name
            if mine.is_file():
                try:
                    found = findings(nbformat.read(mine, as_version=4), nbformat.read(release, as_version=4))
                except Exception as exc:  # a submission is any bytes at all
                    found = [f"cannot be read as a notebook ({type(exc).__name__})"]
                for finding in found:
                    audit.add(student, f"{release.name}: {finding}")
        for finding in inspect_submission(folder, reference_package()):
            audit.add(student, finding)
    exchange = config.get("Exchange", {}).get("root")
    for student, inbound, finding in _inbound_findings(exchange, coursedir.course_id, assignment):
        audit.add(student, f"in the exchange, {inbound}: {finding}")
    _compare_scores(audit, submitted, scoring, coursedir)
    audit.permissions = course_problems(directory, exchange)
    return audit


def _inbound_findings(exchange: str | None, course_id: str, assignment: str) -> list[tuple[str, str, str]]:
    """(student, inbound folder, finding) for each folder of the exchange collect refuses (``grader.course.inbound``),
    and what each other one holds beyond plain files."""
    inbound = Path(exchange or "", course_id, "inbound")
    if not exchange or not inbound.is_dir():
        return []
    found = []
    for submission in inbound_submissions(inbound, assignment):
        if not submission.trusted:
            found.append((submission.student, submission.path.name, f"never collected: {submission.refused}"))
            continue
        found += [(submission.student, submission.path.name, f"{relative} is {what}")
                  for relative, what in irregular_entries(submission.path)]
    return found


def _only_assignment(config) -> str:
    assignments = list(config.get("Autograde", {}).get("exclude_overwriting", {}))
    if len(assignments) != 1:
        raise AuditError("name the assignment to audit with --assignment")
    return assignments[0]


def _compare_scores(audit: Audit, submitted: dict[str, Path], scoring: ScoreChecks, coursedir: CourseDirectory) -> None:
    batch = BackgroundBatch(list(submitted.values()), scoring.settings(), scoring.jobs)
    try:
        reports = {student: batch.report(display_path(str(path))) for student, path in submitted.items()}
        problem = batch.problem()
    finally:
        batch.close()
    by_grade_id = check_grade_ids()
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        notebooks = gb.find_assignment(audit.assignment).notebooks
        for student, report in reports.items():
            if report is None:
                audit.add(student, f"agstate-grade could not grade the submission: {problem}")
                continue
            for task in report["tasks"]:
                if task["status"] == GRADER_ERROR:
                    audit.add(student, f"{task['id']}: the grader itself failed (grader_error), not the student's code; "
                                       f"its score is not compared: run the audit again")
            ours = {task["id"]: task["score"] for task in report["tasks"] if task["status"] != GRADER_ERROR}
            try:
                gb.find_submission(audit.assignment, student)
            except MissingEntry:
                audit.add(student, "not in the gradebook: run nbgrader autograde")
                continue
            for notebook in notebooks:
                for cell in notebook.grade_cells:
                    task = by_grade_id.get(cell.name)
                    if task is None or task not in ours:
                        continue
                    grade = gb.find_grade(cell.name, notebook.name, audit.assignment, student)
                    theirs = grade.score or 0.0  # nbgrader's score: the manual score, else the auto score, + extra credit
                    if abs(theirs - ours[task]) > 1e-9:
                        how = (" (a manual score)" if grade.manual_score is not None else "") + (
                            f" (extra credit {grade.extra_credit:g})" if grade.extra_credit else "")
                        audit.add(student, f"{task}: the gradebook has {theirs:g}{how}, agstate-grade gives {ours[task]:g}")


def render(audit: Audit) -> str:
    lines = [f"agstate-course audit: {audit.assignment}, {len(audit.students)} submissions, seed {audit.seed}"]
    for student in dict.fromkeys(audit.students + list(audit.problems)):  # a submission in the exchange only, too
        for sentence in audit.problems.get(student, []):
            lines.append(f"  {display_path(student)}: {sentence}")
    flagged = len(audit.problems)
    lines.append(f"{flagged} of {len(audit.students)} submissions need a look" if flagged else
                 "every gradebook score equals agstate-grade's; no graded cell was changed; no submission holds a link")
    lines += [f"  permissions: {problem}" for problem in audit.permissions]
    return "\n".join(lines)


def run(args) -> int:
    """``agstate-course audit``: exit 1 when any submission needs a look (permissions are printed, but say nothing of
    a grade)."""
    import sys

    try:
        audit = audit_course(args.directory.resolve(), args.assignment)
    except AuditError as exc:
        print(f"agstate-course: {exc}", file=sys.stderr)
        return 2
    print(render(audit))
    return 1 if audit.problems else 0
