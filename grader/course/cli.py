"""``agstate-course``: a ready nbgrader course for the lab.

    agstate-course init DIR [--assignment agstate-lab] [--part PART ...] [--seed N] [--seed-per-student] [--force]
    agstate-course audit [DIR] [--assignment NAME]

writes ``DIR/nbgrader_config.py`` and ``DIR/source/<assignment>/`` (the
source notebooks with nbgrader's cell metadata, and the learner's ``agstate``
package). From ``DIR``, ``nbgrader generate_assignment <assignment>`` then
releases exactly the repository's learner copies, and ``nbgrader autograde``
scores every check cell with the lab's grader (``grader.course.autograde``), running
no student cell. ``agstate-course audit`` then cross-checks the gradebook
against ``agstate-grade`` and lists every changed graded cell (``grader.course.audit``).
"""

import argparse
import re
import secrets
import shutil
import sys
from pathlib import Path

from grader.authoring.assignment import notebook_text, part_of, source_notebook
from grader.authoring.release import ROOT, learner_package
from grader.catalog import MODULES
from grader.engine import DEFAULT_EXAMPLES, DEFAULT_TIMEOUT

__all__ = ["init_course", "main"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

_CONFIG = '''\
# nbgrader configuration of an agstate lab course, written by `agstate-course init`.
# Run every nbgrader command from this directory.
import warnings

from sqlalchemy.exc import SAWarning

from grader.course.autograde import autograde_steps, sanitize_steps

# nbgrader 0.9's gradebook code makes SQLAlchemy warn on every new submission
# (harmless); without this filter they fill the autograde log.
warnings.filterwarnings("ignore", category=SAWarning, module=r"nbgrader\\.api")

c = get_config()  # noqa: F821

c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.db_url = {db_url!r}
c.Exchange.root = {exchange!r}

# Autograde would replace the student's package with the copies from source/
# (a student without agstate/ would be graded on the stubs); keep the student's own.
c.Autograde.exclude_overwriting = {exclude!r}

# Autograde executes no student cell (see grader/course/autograde.py): the submitted
# notebook is audited for changed graded cells, its saved outputs are kept as
# text and images, deleted or copied graded cells are put back in the released
# shape, and each check cell is scored by the lab's grader in its
# sandbox, with these settings. The same scores:
#   agstate-grade 'submitted/*/{assignment}' --seed {seed} --examples {examples} --timeout {timeout:g}{per_student_flag}
c.Autograde.sanitize_preprocessors = sanitize_steps()
c.Autograde.autograde_preprocessors = autograde_steps()
c.ScoreChecks.seed = {seed}
c.ScoreChecks.examples = {examples}
c.ScoreChecks.grader_timeout = {timeout!r}
c.ScoreChecks.parts = {parts!r}
# True: each student gets a variant of their own, a seed derived from the seed above and the student id.
c.ScoreChecks.seed_per_student = {per_student!r}
'''


class CourseError(Exception):
    pass


def init_course(directory: Path, assignment: str = "agstate-lab", parts: list[str] | None = None,
                seed: int | None = None, examples: int = DEFAULT_EXAMPLES, timeout: float = DEFAULT_TIMEOUT,
                force: bool = False, per_student: bool = False) -> dict:
    """Write a course into ``directory``; return what was written (paths, parts, seed)."""
    directory = directory.resolve()
    if not _NAME.match(assignment):
        raise CourseError(f"assignment name {assignment!r} must be letters, digits, '.', '_' or '-'")
    available = [part for part, module in MODULES.items() if (ROOT / "solutions" / "agstate" / f"{module}.py").exists()]
    parts = parts or available
    unknown = [part for part in parts if part not in available]
    if unknown:
        raise CourseError(f"unknown part {unknown[0]!r}; the parts are {', '.join(available)}")
    if directory.exists() and not directory.is_dir():
        raise CourseError(f"{directory} is a file, not a directory")
    if directory.exists() and any(directory.iterdir()) and not force:
        raise CourseError(f"{directory} is not empty; choose a new directory, or pass --force to write the course "
                          f"into it (replacing nbgrader_config.py and source/{assignment}/)")
    seed = secrets.randbelow(10**6) if seed is None else seed

    source = directory / "source" / assignment
    shutil.rmtree(source, ignore_errors=True)
    notebooks = _write_notebooks(source, parts)
    modules = _write_package(source, parts)
    exclude = sorted(modules)  # the student's whole package: what agstate-grade grades
    (directory / "nbgrader_config.py").write_text(_CONFIG.format(
        root=str(directory), course_id=directory.name, db_url=f"sqlite:///{directory / 'gradebook.db'}",
        exchange=str(directory / "exchange"), exclude={assignment: exclude}, assignment=assignment, seed=seed,
        examples=examples, timeout=float(timeout), parts=parts, per_student=per_student,
        per_student_flag=" --seed-per-student" if per_student else ""))
    return {"directory": directory, "assignment": assignment, "parts": parts, "seed": seed, "notebooks": notebooks,
            "modules": modules, "per_student": per_student}


def _write_notebooks(source: Path, parts: list[str]) -> list[str]:
    written = []
    for master in sorted((ROOT / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
        notebook = source_notebook(master)
        try:
            part = part_of(notebook)
        except ValueError as exc:
            raise CourseError(f"solutions/notebooks/{master.name}: {exc}") from None
        if part in parts:
            source.mkdir(parents=True, exist_ok=True)
            (source / f"{master.stem}.ipynb").write_text(notebook_text(notebook))
            written.append(f"{master.stem}.ipynb")
    return written


def _write_package(source: Path, parts: list[str]) -> list[str]:
    """The learner's package: stubs of the chosen parts' exercise modules and every provided helper."""
    skipped = {f"agstate/{module}.py" for part, module in MODULES.items() if part not in parts}
    written = []
    for relative, text in learner_package().items():
        if relative not in skipped:
            (source / relative).parent.mkdir(parents=True, exist_ok=True)
            (source / relative).write_text(text)
            written.append(relative)
    return written


def parser() -> argparse.ArgumentParser:
    """agstate-course's command line: its sub-commands init and audit."""
    built = argparse.ArgumentParser(prog="agstate-course", description="Set up an nbgrader course for the agstate lab.")
    commands = built.add_subparsers(dest="command", required=True)
    init = commands.add_parser("init", help="write a ready nbgrader course into DIR")
    init.add_argument("directory", metavar="DIR", type=Path)
    init.add_argument("--assignment", default="agstate-lab", help="assignment name (default agstate-lab)")
    init.add_argument("--part", "--lab", dest="part", nargs="+", action="extend", metavar="PART",
                      help=f"parts to include: {', '.join(MODULES)} (default: all; --lab is the same flag)")
    init.add_argument("--seed", type=int, help="grading seed (default: a fresh one, written to the config)")
    init.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES, help=f"examples per rule (default {DEFAULT_EXAMPLES})")
    init.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help=f"seconds per task (default {DEFAULT_TIMEOUT:g})")
    init.add_argument("--seed-per-student", action="store_true",
                      help="autograde each student's own variant: a seed derived from --seed and the student id")
    init.add_argument("--force", action="store_true", help="write into a directory that is not empty")
    audit = commands.add_parser("audit", help="compare the gradebook with agstate-grade and list changed graded cells "
                                              "(exit 1 when there is anything to look at)")
    audit.add_argument("directory", metavar="DIR", type=Path, nargs="?", default=Path("."),
                       help="the course folder (default: the current directory)")
    audit.add_argument("--assignment", help="the assignment to audit (default: the course's only one)")
    return built


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "audit":
        return _audit(args.directory, args.assignment)
    try:
        course = init_course(args.directory, args.assignment, args.part, args.seed, args.examples, args.timeout,
                             args.force, args.seed_per_student)
    except CourseError as exc:
        print(f"agstate-course: {exc}", file=sys.stderr)
        return 2
    print(f"Course written to {course['directory']} (parts: {', '.join(course['parts'])}; grading seed {course['seed']}"
          + (", one variant per student" if course["per_student"] else "") + ").")
    print(f"  source/{course['assignment']}/: {len(course['notebooks'])} notebooks and the agstate package")
    print("Next, from that directory:")
    print(f"  cd {course['directory']}")
    print(f"  nbgrader generate_assignment {course['assignment']}")
    print(f"  nbgrader release_assignment {course['assignment']}   # or hand out release/{course['assignment']}/")
    return 0


def _audit(directory: Path, assignment: str | None) -> int:
    from grader.course.audit import AuditError, audit_course, render

    try:
        audit = audit_course(directory.resolve(), assignment)
    except AuditError as exc:
        print(f"agstate-course: {exc}", file=sys.stderr)
        return 2
    print(render(audit))
    return 1 if audit.problems else 0


if __name__ == "__main__":
    sys.exit(main())
