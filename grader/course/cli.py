"""``agstate-course``: a ready nbgrader course for the lab.

    agstate-course init DIR [--assignment agstate-lab] [--part PART ...] [--seed N] [--seed-per-student] [--force]
                            [--course-id ID] [--exchange PATH] [--due TIME]
    agstate-course config student [DIR] [--output FILE]
    agstate-course config instructor [DIR] [--output FILE] [--force]
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
import datetime
import os
import re
import secrets
import shutil
import sys
from pathlib import Path

import dateutil.parser
from nbgrader.api import Gradebook

from grader.authoring.assignment import notebook_text, part_of, source_notebook
from grader.authoring.release import ROOT, learner_package
from grader.catalog import MODULES
from grader.course.configs import instructor_config, student_config
from grader.course.permissions import course_problems, make_course_private
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
# nbgrader's collect follows symbolic links, as you, out of a folder the student owns; this one copies plain files
# only and names what it leaves out (grader/course/exchange.py). fetch_feedback also brings the summary page.
c.ExchangeFactory.collect = "grader.course.exchange.Collect"
c.ExchangeFactory.fetch_feedback = "grader.course.exchange.FetchFeedback"

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
                force: bool = False, per_student: bool = False, course_id: str | None = None,
                exchange: Path | None = None, due: str | None = None) -> dict:
    """Write a course into ``directory``; return what was written (paths, parts, seed, problems of permissions)."""
    directory = directory.resolve()
    course_id = directory.name if course_id is None else course_id
    exchange = (directory / "exchange") if exchange is None else exchange.resolve()
    for what, name in (("assignment name", assignment), ("course id", course_id)):
        if not _NAME.match(name) or "+" in name:
            raise CourseError(f"{what} {name!r} must be letters, digits, '.', '_' or '-'")
    duedate = _due(due)
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

    directory.mkdir(parents=True, exist_ok=True)
    make_course_private(directory)  # before anything is written in it: the seed, then the gradebook
    source = directory / "source" / assignment
    shutil.rmtree(source, ignore_errors=True)
    notebooks = _write_notebooks(source, parts)
    modules = _write_package(source, parts)
    exclude = sorted(modules)  # the student's whole package: what agstate-grade grades
    (directory / "nbgrader_config.py").write_text(_CONFIG.format(
        root=str(directory), course_id=course_id, db_url=f"sqlite:///{directory / 'gradebook.db'}",
        exchange=str(exchange), exclude={assignment: exclude}, assignment=assignment, seed=seed,
        examples=examples, timeout=float(timeout), parts=parts, per_student=per_student,
        per_student_flag=" --seed-per-student" if per_student else ""))
    if duedate is not None:
        # nbgrader's gradebook runs alembic by name: the one of this environment, PATH or not.
        os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        with Gradebook(f"sqlite:///{directory / 'gradebook.db'}", course_id) as gb:
            gb.update_or_create_assignment(assignment, duedate=duedate)
    return {"directory": directory, "assignment": assignment, "parts": parts, "seed": seed, "notebooks": notebooks,
            "modules": modules, "per_student": per_student, "course_id": course_id, "exchange": exchange,
            "due": duedate, "problems": course_problems(directory, str(exchange))}


def _due(due: str | None) -> datetime.datetime | None:
    """The due date as nbgrader stores it: naive UTC. The time zone is required: a due date is a moment.

    (nbgrader's own ``--duedate`` reads "17:00 +01:00" as 17:00 UTC and "+0100" as 100 seconds; dateutil reads both.)
    """
    if due is None:
        return None
    try:
        moment = dateutil.parser.parse(due)
    except (ValueError, OverflowError):
        moment = None
    if moment is None or moment.tzinfo is None:
        raise CourseError(f"--due {due!r} is not a time with its time zone; write it as '2027-01-15 17:00 UTC' or "
                          "'2027-01-15 17:00 +01:00'")
    return moment.astimezone(datetime.UTC).replace(tzinfo=None)


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
    init.add_argument("--course-id", help="nbgrader's course id, which students' configuration names (default: DIR's name)")
    init.add_argument("--exchange", type=Path, help="the exchange every account shares, on a multi-user server "
                                                    "(default: DIR/exchange, for one account)")
    init.add_argument("--due", help="the due date, as nbgrader's --duedate takes it: '2027-01-15 17:00 UTC'")
    config = commands.add_parser("config", help="write the students' or the instructor's nbgrader configuration")
    config.add_argument("who", choices=("student", "instructor"))
    config.add_argument("directory", metavar="DIR", type=Path, nargs="?", default=Path("."),
                        help="the course folder (default: the current directory)")
    config.add_argument("--output", type=Path, help="the file to write (default: standard output for student, "
                                                    "~/.jupyter/nbgrader_config.py for instructor)")
    config.add_argument("--force", action="store_true", help="replace the output file if it exists")
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
        if args.command == "config":
            return _config(args.who, args.directory.resolve(), args.output, args.force)
        course = init_course(args.directory, args.assignment, args.part, args.seed, args.examples, args.timeout,
                             args.force, args.seed_per_student, args.course_id, args.exchange, args.due)
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
    print(f"Course id {course['course_id']!r}, exchange {course['exchange']}"
          + (f", due {course['due']:%Y-%m-%d %H:%M} UTC" if course["due"] else "") + ".")
    for problem in course["problems"]:
        print(f"agstate-course: warning: {problem}", file=sys.stderr)
    return 0


def _config(who: str, directory: Path, output: Path | None, force: bool) -> int:
    settings = _course_settings(directory)
    if who == "student":
        text = student_config(settings["course_id"], settings["exchange"])
    else:
        text = instructor_config(directory)
        output = output or Path.home() / ".jupyter" / "nbgrader_config.py"
    if output is None:
        sys.stdout.write(text)
        return 0
    if output.exists() and not force and output.read_text() != text:
        raise CourseError(f"{output} exists; pass --force to replace it")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text)
    if who == "student":
        output.chmod(0o644)  # every student's Jupyter reads it; it holds no secret
    print(f"wrote {output}", file=sys.stderr)
    return 0


def _course_settings(directory: Path) -> dict:
    """The course id and exchange of the course in ``directory``, as nbgrader reads its configuration."""
    from traitlets.config import PyFileConfigLoader

    if not (directory / "nbgrader_config.py").is_file():
        raise CourseError(f"{directory} has no nbgrader_config.py; give the course folder agstate-course init wrote")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(directory)).load_config()
    return {"course_id": config.CourseDirectory.course_id, "exchange": config.Exchange.root}


def _audit(directory: Path, assignment: str | None) -> int:
    from grader.course.audit import AuditError, audit_course, render

    try:
        audit = audit_course(directory.resolve(), assignment)
    except AuditError as exc:
        print(f"agstate-course: {exc}", file=sys.stderr)
        return 2
    print(render(audit))
    return 1 if audit.problems else 0  # permissions are printed, but say nothing of a grade


if __name__ == "__main__":
    sys.exit(main())
