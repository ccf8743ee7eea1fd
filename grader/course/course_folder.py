"""A course folder for the lab, as ``agstate-course init`` writes it: the course's nbgrader configuration, the source
notebooks and the learner's package, the due date in the gradebook.

The configuration names the lab's own nbgrader classes (``grader.course.exchange``,
``grader.course.autograde``) and the grading settings (seed, examples,
timeout, parts), which ``course_settings`` reads back for the other
commands (``grader.course.configs.course_settings``).
"""

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
from grader.course.configs import CourseError
from grader.course.permissions import course_problems, make_course_private
from grader.engine import DEFAULT_EXAMPLES, DEFAULT_TIMEOUT

__all__ = ["CourseError", "init_course"]  # CourseError: grader.course.configs's

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
# nbgrader's exchange trusts what any account writes in inbound/; these do not (grader/course/exchange.py):
# release_assignment gives inbound/ the sticky bit; collect takes only the folders a student made with nbgrader
# submit, never one made in their name, dated in the future or unreadable, and copies plain files only, never
# following a link; release_feedback passes over, and names, a student whose feedback it cannot release, not the
# class after them; fetch_feedback also brings the summary page.
c.ExchangeFactory.release_assignment = "grader.course.exchange.ReleaseAssignment"
c.ExchangeFactory.collect = "grader.course.exchange.Collect"
c.ExchangeFactory.release_feedback = "grader.course.exchange.ReleaseFeedback"
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




def init_course(directory: Path, assignment: str = "agstate-lab", parts: list[str] | None = None,
                seed: int | None = None, examples: int | None = None, timeout: float | None = None,
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
    examples = DEFAULT_EXAMPLES if examples is None else examples
    timeout = DEFAULT_TIMEOUT if timeout is None else timeout

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
            "due": duedate, "examples": examples, "timeout": float(timeout),
            "problems": course_problems(directory, str(exchange))}


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



def run(args) -> int:
    """``agstate-course init``: the course written, and what to do next."""
    course = init_course(args.directory, args.assignment, args.part, args.seed, args.examples, args.timeout,
                         args.force, args.seed_per_student, args.course_id, args.exchange, args.due)
    print(f"Course written to {course['directory']} (parts: {', '.join(course['parts'])}; grading seed {course['seed']}"
          + (", one variant per student" if course["per_student"] else "") + ").")
    print(f"  source/{course['assignment']}/: {len(course['notebooks'])} notebooks and the agstate package")
    print("Next, from that directory:")
    print(f"  cd {course['directory']}")
    print(f"  nbgrader generate_assignment {course['assignment']}")
    print(f"  nbgrader release_assignment {course['assignment']}   # or hand out release/{course['assignment']}/")
    print(f"Course id {course['course_id']!r}, exchange {course['exchange']}"
          + (f", due {course['due']:%Y-%m-%d %H:%M} UTC" if course["due"] else "") + ".")
    # What a grading service must be given so that practice grades as autograde will (agstate-course hub-config
    # writes it into the hub's configuration).
    print(f"A grading service for this course: agstate-grading-service --part {' '.join(course['parts'])} "
          f"--examples {course['examples']} --timeout {course['timeout']:g}")
    for problem in course["problems"]:
        print(f"agstate-course: warning: {problem}", file=sys.stderr)
    return 0
