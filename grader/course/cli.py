"""``agstate-course``: a ready nbgrader course for the lab, and its hub.

    agstate-course init DIR [--assignment agstate-lab] [--part PART ...] [--seed N] [--seed-per-student] [--force]
                            [--course-id ID] [--exchange PATH] [--due TIME]
    agstate-course config student [DIR] [--output FILE]
    agstate-course config instructor [DIR] [--output FILE] [--force]
    agstate-course audit [DIR] [--assignment NAME]
    agstate-course hub-config [DIR] --instructor NAME [--output FILE] [...]
    agstate-course practice-log [LOG] [--student NAME]

``init`` writes ``DIR/nbgrader_config.py`` and ``DIR/source/<assignment>/``
(``grader.course.course_folder``). From ``DIR``, ``nbgrader generate_assignment
<assignment>`` then releases exactly the repository's learner copies, and
``nbgrader autograde`` scores every check cell with the lab's grader
(``grader.course.autograde``), running no student cell. ``audit`` then
cross-checks the gradebook against ``agstate-grade`` and lists every
changed graded cell, refused submission and open permission
(``grader.course.audit``). ``hub-config`` writes the hub's configuration for the
course and its grading service (``grader.course.hub_config``), ``practice-log``
reads the service's log (``grader.course.practice_log``).

The students' environments have this command too, for ``config student``
alone: the course kit has no grader, so the other sub-commands say where to
run them (each imports what it needs only when it runs).
"""

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

from grader.catalog import MODULES
from grader.course.configs import CourseError, course_settings, instructor_config, student_config

__all__ = ["main", "parser"]

_INSTRUCTORS_TOOL = ("agstate-course {command} is the instructor's: this environment is a course kit (the students'), "
                     "which has no grader; run it from the instructor's environment (docs/instructor/hub-course.md)")


def parser() -> argparse.ArgumentParser:
    """agstate-course's command line: its sub-commands init, config, audit, hub-config and practice-log."""
    built = argparse.ArgumentParser(prog="agstate-course", description="Set up an nbgrader course for the agstate lab.")
    commands = built.add_subparsers(dest="command", required=True)
    init = commands.add_parser("init", help="write a ready nbgrader course into DIR")
    init.add_argument("directory", metavar="DIR", type=Path)
    init.add_argument("--assignment", default="agstate-lab", help="assignment name (default agstate-lab)")
    init.add_argument("--part", "--lab", dest="part", nargs="+", action="extend", metavar="PART",
                      help=f"parts to include: {', '.join(MODULES)} (default: all; --lab is the same flag until it is removed on "
                           "2027-03-01)")
    init.add_argument("--seed", type=int, help="grading seed (default: a fresh one, written to the config)")
    init.add_argument("--examples", type=int, help="examples per rule (default: agstate-grade's)")
    init.add_argument("--timeout", type=float, help="seconds per task (default: agstate-grade's)")
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
    audit = commands.add_parser("audit", help="compare the gradebook with agstate-grade, list changed graded cells, refused "
                                              "submissions and open permissions (exit 1 when there is anything to look at)")
    audit.add_argument("directory", metavar="DIR", type=Path, nargs="?", default=Path("."),
                       help="the course folder (default: the current directory)")
    audit.add_argument("--assignment", help="the assignment to audit (default: the course's only one)")
    from grader.course.hub_layout import add_layout_arguments  # light: paths and their defaults

    hub = commands.add_parser("hub-config", help="write JupyterHub's configuration for the course and its grading service")
    hub.add_argument("directory", metavar="DIR", type=Path, nargs="?", default=Path("."),
                     help="the course folder (default: the current directory): its parts, examples and timeout")
    hub.add_argument("--instructor", required=True, action="append", metavar="NAME[=ENV]",
                     help="an instructor's account (repeat for more), whose server runs their own environment ENV "
                          "(default ~NAME/agstate-lab/.venv: the Formgrader, the course's tools)")
    hub.add_argument("--ssl-cert", type=Path, help="the hub's TLS certificate (without it: behind a TLS proxy)")
    hub.add_argument("--ssl-key", type=Path, help="the hub's TLS key")
    hub.add_argument("--output", type=Path, help="the file to write (default: standard output)")
    add_layout_arguments(hub)
    log = commands.add_parser("practice-log", help="what students checked on the grading service, and its failures")
    log.add_argument("log", metavar="LOG", type=Path, nargs="?",
                     default=Path("/var/lib/agstate-grading/agstate-checks.jsonl"),
                     help="the service's log (default: /var/lib/agstate-grading/agstate-checks.jsonl)")
    log.add_argument("--student", help="one student's checks, line by line")
    return built


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "config":
            return _config(args.who, args.directory.resolve(), args.output, args.force)
        return _instructors(args)
    except CourseError as exc:
        print(f"agstate-course: {exc}", file=sys.stderr)
        return 2


# The sub-commands that need the grader or nbgrader's instructor side, and the module that runs each: none of them is
# in a course kit, whose students' environments run `config student` alone.
_INSTRUCTORS = {"init": "course_folder", "audit": "audit", "hub-config": "hub_config", "practice-log": "practice_log"}


def _instructors(args) -> int:
    try:
        module = importlib.import_module(f"grader.course.{_INSTRUCTORS[args.command]}")
    except ModuleNotFoundError as missing:
        if not (missing.name or "").startswith(("grader.", "nbgrader")):
            raise
        raise CourseError(_INSTRUCTORS_TOOL.format(command=args.command)) from None
    return module.run(args)


def _config(who: str, directory: Path, output: Path | None, force: bool) -> int:
    settings = course_settings(directory)
    if who == "student":
        text = student_config(settings["course_id"], settings["exchange"])
        if output is not None:
            _refuse_an_environment_without_the_exchange(output)
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


def _refuse_an_environment_without_the_exchange(output: Path) -> None:
    """The students' configuration names the lab's exchange classes: written into an environment
    (``<env>/etc/jupyter/``) whose Python cannot import them, every student's nbgrader would fail with a TraitError."""
    parts = output.resolve().parts
    if parts[-3:-1] != ("etc", "jupyter"):
        return
    python = Path(*parts[:-3]) / "bin" / "python"
    if not python.exists():
        return
    done = subprocess.run([python, "-c", "import grader.course.exchange"], capture_output=True, text=True)
    if done.returncode != 0:
        raise CourseError(f"{python} cannot import grader.course.exchange, which the students' configuration names "
                          "(every student's nbgrader would fail with a TraitError): build that environment with "
                          "make students-env (KIT=course or the default)")


if __name__ == "__main__":
    sys.exit(main())
