"""``agstate-grade``: grade one submission or a whole class from a terminal (docs/reference/cli.md).

Exit status: 0 every graded task passed, 1 some did not, 2 a usage error or a task the grader itself could not grade.
"""

import argparse
import glob
import json
import os
import random
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from grader import caches
from grader.catalog import MODULES, TASKS, whole_parts
from grader.engine import DEFAULT_EXAMPLES, DEFAULT_TIMEOUT
from grader.i18n import _
from grader.reports import gradebook, lms, owned
from grader.reports.report import GRADER_ERROR, Report, without_seconds
from grader.reports.safe import clean, display_path, for_terminal
from grader.reports.scorecard import NO_SANDBOX_WARNING, render_text
from grader.reports.students import StudentIdError, student_ids, student_seed
from grader.sandbox import bubblewrap
from grader.sandbox.limits import DEFAULT_MEMORY_MB

__all__ = ["main", "select_tasks", "render_text", "expand_paths"]


class UsageError(Exception):
    pass


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agstate-grade",
        description="Grade agstate lab submissions: each PATH is a directory holding an agstate/ package, "
                    "or a glob such as 'submitted/*/agstate-lab'.",
        epilog="Repeat any run exactly with the --seed it prints.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="submission directories or globs (default: .)")
    # --lab: the flag's first name, kept so earlier commands still run, until docs/contributing/deprecations.md's date.
    parser.add_argument("--part", "--lab", dest="part", nargs="+", action="extend", metavar="PART",
                        help=f"grade these parts: {', '.join(MODULES)} (default: every part, for every submission; "
                             "--lab is the same flag until it is removed on 2027-03-01)")
    parser.add_argument("--task", nargs="+", action="extend", metavar="ID",
                        help="grade only these task ids, e.g. state.dedupe (the flag may be repeated)")
    parser.add_argument("--seed", type=int, help="randomization seed (default: fresh, printed)")
    parser.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES,
                        help=f"random examples per rule (default {DEFAULT_EXAMPLES}); a rule whose example costs more (a graph run, "
                             "a killed writer) draws a named share of them: grader.engine.checking.BUDGETS")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds per task of your code's time (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="gradings at once (default: cores): submissions, or, for fewer submissions than that, "
                             "their tasks (the same reports)")
    parser.add_argument("--memory", type=int, default=DEFAULT_MEMORY_MB, metavar="MB",
                        help="memory of a task: its whole process tree where cgroups exist, else each process "
                             f"(default {DEFAULT_MEMORY_MB})")
    parser.add_argument("--out", metavar="FILE", help="write a gradebook CSV to FILE and a log of reports to FILE's .jsonl")
    parser.add_argument("--resume", action="store_true", help="with --out: skip submissions already in the log")
    parser.add_argument("--regrade", action="store_true",
                        help="with --out: grade the given submissions again, with the log's seed and tasks; every other "
                             "row of the gradebook and line of the log stays as it is, and the log marks the new "
                             "records as regraded, with the time")
    parser.add_argument("--seed-per-student", action="store_true",
                        help="give each student a variant of their own: a seed derived from --seed and the student "
                             "id (the submission folder's name, or its parent's in nbgrader's submitted/<student>/"
                             "<assignment> layout); the report, the gradebook and the log record each student's seed")
    parser.add_argument("--lms", choices=lms.FORMATS,
                        help="with --out FILE and --roster: also write FILE's grades as that LMS imports them, to "
                             "FILE.<lms>.csv (e.g. grades.canvas.csv)")
    parser.add_argument("--roster", metavar="CSV", help="with --lms: the LMS's own export (Canvas: Grades > Export; Moodle: "
                                                        "a grades or participants export), mapping its students to nbgrader's")
    parser.add_argument("--roster-id", metavar="COLUMN",
                        help="the roster column holding the nbgrader student ids (default: Canvas 'SIS Login ID', "
                             "Moodle 'Username')")
    parser.add_argument("--lms-assignment", metavar="NAME", default="agstate lab",
                        help="the LMS's assignment column; Canvas: as the roster writes it, 'Name (id)', to grade an "
                             "existing assignment (default: 'agstate lab', a new one)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="grade on the Dask cluster of this scheduler (tcp://host:8786), in shards of --shard-size "
                             "submissions, each worker reading them at the same paths (docs/instructor/at-scale.md); "
                             "--jobs is then each shard's")
    parser.add_argument("--shard-size", type=int, default=25, metavar="N",
                        help="with --scheduler: submissions per task on the cluster (default 25)")
    parser.add_argument("--json", action="store_true", help="print the JSON report(s) on stdout and nothing else")
    parser.add_argument("--timings", action="store_true",
                        help="give each task's wall seconds (\"seconds\" in the JSON report, a column in the scorecard); "
                             "they differ from run to run, so a report with them does not repeat byte for byte "
                             "(the --out log always has them)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="show every failing rule of a task in full (default: the first in full, the others one line each)")
    sandboxing = parser.add_mutually_exclusive_group()
    sandboxing.add_argument("--no-sandbox", action="store_true",
                            help="run the learner's code without bubblewrap, as you (for your own work only; "
                                 "every report says so)")
    sandboxing.add_argument("--require-sandbox", action="store_true",
                            help="refuse to grade even one submission without bubblewrap (a service grading "
                                 "others' code: never as itself)")
    return parser


def expand_paths(arguments: list[str]) -> list[str]:
    """Submission directories, in argument order; a glob expands to its sorted matches."""
    paths = []
    for argument in arguments:
        if Path(argument).is_dir():  # a folder named like a glob ("ana[1]") is that folder, not a pattern
            paths.append(os.path.normpath(argument))  # "./a/" and "a" are one submission of a log
        elif glob.has_magic(argument):
            matches = sorted(os.path.normpath(p) for p in glob.glob(argument) if Path(p).is_dir())
            if not matches:
                raise UsageError(_("no submission directory matches {pattern}").format(pattern=argument))
            paths.extend(matches)
        else:
            raise UsageError(_("no such submission directory: {path}").format(path=argument))
    return paths


def select_tasks(parts: list[str] | None, task_ids: list[str] | None) -> list[str]:
    """Task ids to grade, in registry order: the same for every submission; unknown names raise ``UsageError``."""
    for part in parts or []:
        if part not in MODULES:
            raise UsageError(_("unknown part {part}; choose one of: {parts}").format(part=repr(part), parts=", ".join(MODULES)))
    for task_id in task_ids or []:
        if task_id not in TASKS:
            raise UsageError(_("unknown task {task}; known tasks: {tasks}").format(task=repr(task_id), tasks=", ".join(TASKS)))
    return [t for t in TASKS if (not task_ids or t in task_ids) and (not parts or TASKS[t].part in parts)]


def _summary_line(report: Report) -> str:
    """One line per submission in a batch: score, path, and what did not pass."""
    broken = ", ".join(f"{t['id']} {t['status']}" for t in report["tasks"] if t["status"] != "passed")
    where = report["submission"].replace("\n", "\\n").replace("\r", "\\r")  # one line per submission, whatever its name
    line = f"{report['score']:6.1f}/{report['max_score']:<6.1f} {where}"
    return for_terminal(line + (f"  ({broken})" if broken else ""))


class Plan(NamedTuple):
    """What a run grades: (submission, task ids) pairs, the batch's seed, and what its log already holds."""

    plans: list
    seed: int
    roster: object  # grader.reports.lms.Roster, with --lms
    per_student: bool  # --seed-per-student, asked or as the log was graded
    students: dict  # submission -> student id, when a seed or the LMS needs them (grader.reports.students.student_ids)
    done: dict  # submission -> report: graded already, skipped (--resume)
    logged: dict  # submission -> report: the log's, kept in the gradebook (--resume, --regrade)


def _plan(args) -> Plan:
    paths = expand_paths(args.paths or ["."])
    if args.examples < 1 or args.timeout <= 0 or args.jobs < 1 or args.memory < 64 or args.shard_size < 1:
        raise UsageError(_("--examples, --jobs and --shard-size must be >= 1, --timeout > 0 and --memory >= 64"))
    if len(paths) > 1 and not any((Path(path) / "agstate").is_dir() for path in paths):
        raise UsageError(_("none of the {count} folders holds an agstate/ package (the first: {first}); in nbgrader's "
                           "layout the submissions are 'submitted/*/<assignment>'").format(count=len(paths), first=paths[0]))
    if args.out and Path(args.out).suffix == ".jsonl":
        raise UsageError(f"--out names the gradebook CSV (its log is written beside it, as .jsonl): "
                         f"use --out {Path(args.out).with_suffix('.csv')}")
    for flag in ("resume", "regrade"):
        if getattr(args, flag) and not args.out:
            raise UsageError(f"--{flag} needs --out FILE (the log it {flag}s from)")
    roster = _roster(args)
    if args.resume and args.regrade:
        raise UsageError("--resume grades who is not in the log yet, --regrade who is: choose one")
    logged = {}
    if args.out:
        try:  # a log planted in a shared folder, or one another account may replace, is neither written nor trusted
            owned.check_owned(gradebook.log_path(args.out))
        except owned.UntrustedLog as exc:
            raise UsageError(str(exc)) from None
    if args.resume or args.regrade:
        logged = gradebook.read_log(args.out)
    if args.regrade and not logged:
        raise UsageError(f"nothing to regrade: {gradebook.log_path(args.out)} holds no report")
    paths = _one_spelling(paths, logged)
    where = gradebook.log_path(args.out) if args.out else None
    seeds = {report.get("batch_seed", report["seed"]) for report in logged.values()}
    if len(seeds) > 1:
        raise UsageError(f"{where} mixes seeds {sorted(seeds)}; start a new --out file")
    seed = args.seed if args.seed is not None else next(iter(seeds), random.SystemRandom().randrange(2**31))
    if seeds and seed not in seeds:
        raise UsageError(f"{where} was graded with seed {seeds.pop()}, not {seed}")
    variants = {"batch_seed" in report for report in logged.values()}
    per_student = args.seed_per_student or True in variants
    if variants and variants != {per_student}:
        raise UsageError(f"{where} was graded {'with' if True in variants else 'without'} --seed-per-student: "
                         "grade the same way, or start a new --out file")
    tasks = _tasks(args, logged, where)
    students = {}
    if per_student or roster is not None:
        # A student the log knows keeps the id (and so the seed) it was graded with: told apart from a whole class,
        # a submission regraded alone would otherwise be named by its own folder.
        known = {path: logged[path]["student"] for path in paths if isinstance(logged.get(path, {}).get("student"), str)}
        try:
            students = known if len(known) == len(paths) else {**student_ids(paths), **known}
        except StudentIdError as exc:
            raise UsageError(str(exc)) from None
    if roster is not None and not set(students.values()) & lms.roster_ids(roster):
        raise UsageError(f"none of the {len(students)} students (e.g. {next(iter(students.values()))!r}) is in the "
                         f"roster's {roster.id_column!r} column; name the column holding the nbgrader ids with --roster-id")
    return Plan([(path, tasks) for path in paths], seed, roster, per_student, students, logged if args.resume else {},
                logged)


def _one_spelling(paths: list[str], logged: dict) -> list[str]:
    """Each submission once, spelled as its log spells it: ``a``, ``./a/`` and ``/abs/a`` are one folder, one row.

    Told apart by their absolute paths, not by where links lead: a student's folder that is a link to a classmate's
    must not take the classmate's place (the one graded first would be kept).
    """
    places = {}
    for key in logged:
        places.setdefault(os.path.abspath(key), key)
    seen, kept = set(), []
    for path in paths:
        place = os.path.abspath(path)
        if place in seen:
            print("agstate-grade: " + _("{path} is a submission named already: graded once").format(
                path=for_terminal(display_path(path))), file=sys.stderr)
            continue
        seen.add(place)
        kept.append(places.get(place, path))
    return kept


def _roster(args):
    if not (args.lms or args.roster):
        return None
    if not (args.lms and args.roster and args.out):
        raise UsageError("--lms needs --roster CSV (the LMS's export) and --out FILE (the gradebook it goes with)")
    try:
        return lms.load_roster(args.roster, args.lms, args.roster_id)
    except lms.LmsError as exc:
        raise UsageError(str(exc)) from None


def _tasks(args, logged: dict, where) -> list[str]:
    """The tasks to grade; a resumed or regraded log's own (every row of a gradebook keeps one maximum)."""
    graded = [task_id for task_id in TASKS if any(task["id"] == task_id for report in logged.values()
                                                  for task in report.get("tasks", []))]
    if logged and not args.part and not args.task:
        return graded
    tasks = select_tasks(args.part, args.task)
    if logged and tasks != graded:
        raise UsageError(f"{where} was graded on {len(graded)} tasks ({_tasks_text(graded)}); --part/--task asks for "
                         f"{_tasks_text(tasks)}: leave them out to use the log's, or start a new --out file")
    return tasks


def _tasks_text(tasks: list[str]) -> str:
    parts = whole_parts(tasks)
    return "part " + ", ".join(parts) if parts else ", ".join(tasks)


def _sandbox(args, submissions: int) -> str | None:
    """None to grade in bubblewrap, else why not; raises ``UsageError`` for a batch that cannot be sandboxed.

    A batch is a batch however small: a run that writes a gradebook (``--out``,
    and so ``--resume`` and ``--regrade`` of one submission) is refused too,
    so a gradebook never holds a row graded without a sandbox unless
    ``--no-sandbox`` asked for it.
    """
    if args.no_sandbox:
        print(f"agstate-grade: --no-sandbox: {_(NO_SANDBOX_WARNING)}", file=sys.stderr)
        return "--no-sandbox was given"
    reason = bubblewrap.unavailable()
    if reason is None:
        return None
    if args.require_sandbox:
        raise UsageError(_("refusing to grade without a sandbox (--require-sandbox): {reason}").format(reason=reason))
    if submissions > 1:
        raise UsageError(_("refusing to grade {count} submissions without a sandbox: {reason}; or pass --no-sandbox to "
                           "grade trusted submissions without it").format(count=submissions, reason=reason))
    if args.out:
        raise UsageError(_("refusing to write the gradebook {path} without a sandbox: {reason}; or pass --no-sandbox to "
                           "grade trusted submissions without it").format(path=args.out, reason=reason))
    print(f"agstate-grade: {reason}", file=sys.stderr)
    print(f"agstate-grade: {_(NO_SANDBOX_WARNING)}", file=sys.stderr)
    return reason


@contextmanager
def _ctrl_c_after():
    """Ctrl-C waits for the block: a finished report is in the log, the gradebook and the count told, or in none.

    Without it a Ctrl-C between the log's line and the count said "3 of 5 graded" with 4 in the log.
    """
    if threading.current_thread() is not threading.main_thread():  # only the main thread receives Ctrl-C
        yield
        return
    pressed = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pressed:
            raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    caches.keep_hypothesis_out_of_the_workspace()  # before anything is drawn: no .hypothesis/ in the folder graded
    # "report LOG": the class report; a submission folder named report is still graded ("agstate-grade report"),
    # unless what follows is a log or gradebook file.
    if argv[:1] == ["report"] and (not Path("report").is_dir() or any(Path(a).suffix in (".jsonl", ".csv") and
                                                                      Path(a).is_file() for a in argv[1:2])):
        from grader.reports import class_page as reportpage

        return reportpage.main(argv[1:])
    args = parser().parse_args(argv)
    try:
        plan = _plan(args)
        plans, seed, done = plan.plans, plan.seed, plan.done
        unsandboxed = _sandbox(args, len(plans) - len(done))
    except UsageError as exc:
        print(f"agstate-grade: {exc}", file=sys.stderr)
        return 2
    from grader.sandbox import zygote

    zygote.shared()  # starts importing LangGraph in the zygote while this process imports the tasks
    from grader.engine.batch import grade_many  # the heavy imports, only once the arguments are known

    reports: list[dict | None] = [done.get(display_path(path)) for path, _tasks in plans]
    reports = [r if r is None else _printed(gradebook.unlogged(r), args.timings) for r in reports]
    todo = [i for i, report in enumerate(reports) if report is None]
    book = gradebook.Gradebook(args.out, plan.logged, regrading=args.regrade) if args.out else None
    students = [plan.students.get(plans[i][0]) for i in todo]
    seeds = [student_seed(seed, student) for student in students] if plan.per_student else seed
    if args.regrade:
        for path, _tasks in plans:
            if display_path(path) not in plan.logged:
                print(f"agstate-grade: {for_terminal(display_path(path))} is not in {gradebook.log_path(args.out)}: "
                      "graded as a new submission, not a regrade", file=sys.stderr)
    progress = _progress(len(plans), initial=len(plans) - len(todo))
    single = len(plans) == 1

    def finished(position: int, report: Report) -> None:
        with _ctrl_c_after():
            _record(position, report)

    def _record(position: int, report: Report) -> None:
        if unsandboxed:  # why, for the scorecards: a learner told to install a bubblewrap they have is lost
            report = {**report, "unsandboxed": unsandboxed}
        if students[position] is not None:  # whose it is (for the LMS, told apart from the batch's others), and
            # with --seed-per-student whose variant: after the submission and its seed
            variant = {"batch_seed": seed} if plan.per_student else {}
            report = {"submission": report["submission"], "seed": report["seed"], "student": students[position],
                      **variant, **report}
        if book:
            book.add(report)
        report = _printed(report, args.timings)
        reports[todo[position]] = report
        if not args.json:
            with progress.external_write_mode(file=sys.stdout):
                _say(render_text(report, args.verbose) if single else _summary_line(report))
        progress.update(1)

    if args.scheduler:  # the same grading, shard by shard on the cluster: the same reports
        from grader.warm.cluster import batch_grader

        grade_many = batch_grader(args.scheduler, args.shard_size)
    try:
        grade_many([plans[i] for i in todo], seeds, args.examples, args.timeout, args.memory, args.jobs, finished,
                   sandbox=unsandboxed is None, costs="seconds" if args.timings or args.out else None)
    except KeyboardInterrupt:
        progress.close()
        print("agstate-grade: " + _("interrupted; {done} of {count} graded").format(
            done=sum(r is not None for r in reports), count=len(plans))
              + (_(", kept in {log} (use --resume)").format(log=gradebook.log_path(args.out)) if args.out else ""),
              file=sys.stderr)
        return 130
    progress.close()
    if plan.roster is not None and not _lms_export(args, plan.roster, book):
        return 2
    if args.json:
        cleaned = [clean(report) for report in reports]  # each report, never the list: a class has no size cap
        _say(json.dumps(cleaned[0] if single else cleaned, indent=2, ensure_ascii=False, allow_nan=False))
    elif not single:
        total = sum(r["score"] for r in reports)
        _say(f"{len(reports)} submissions graded with seed {seed}" + (" (one variant per student)" if plan.per_student else "")
             + f"; mean score {total / len(reports):.1f}"
             + (f"; gradebook {args.out}" if args.out else ""))
    statuses = {task["status"] for report in reports for task in report["tasks"]}
    if GRADER_ERROR in statuses:
        failed = [report for report in reports if any(task["status"] == GRADER_ERROR for task in report["tasks"])]
        print("agstate-grade: " + _("the grader itself failed on {failed} of {count} submission(s) (status {status}): their "
                                    "scores say nothing of their code; grade them {again}").format(
            failed=len(failed), count=len(reports), status=GRADER_ERROR, again="--regrade" if args.out else _("again")),
              file=sys.stderr)
        return 2
    return 0 if statuses <= {"passed"} else 1


def _lms_export(args, roster, book: gradebook.Gradebook) -> bool:
    """Write the gradebook's grades as ``args.lms`` imports them, next to it; say what does not match the roster."""
    target = gradebook.lms_path(args.out, args.lms)
    try:
        warnings = lms.export(args.lms, list(book.reports.values()), roster, target, args.lms_assignment)
    except lms.LmsError as exc:
        print(f"agstate-grade: {args.lms} export: {exc} (the gradebook {args.out} is written)", file=sys.stderr)
        return False
    for warning in warnings:
        print(f"agstate-grade: {args.lms} export: {for_terminal(warning)}", file=sys.stderr)
    print(f"agstate-grade: {args.lms} grades written to {target}", file=sys.stderr)
    return True


def _printed(report: Report, timings: bool) -> Report:
    """A report as printed: without its seconds unless asked for (the log keeps them; what is printed repeats)."""
    return report if timings else without_seconds(report)


def _say(text: str) -> None:
    """Print ``text`` on stdout. Once its reader has gone (``| head``, ``| grep -q``), the rest goes nowhere.

    Grading goes on, so a gradebook (``--out``) is still complete and the exit
    status is still the grade's, rather than a BrokenPipeError's traceback.
    """
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # also takes what is left in print's buffer


def _progress(total: int, initial: int):
    from tqdm import tqdm

    # A bar only for a person at a terminal: never in logs, pipes or --json runs' stderr files.
    return tqdm(total=total, initial=initial, unit="submission", file=sys.stderr, disable=not sys.stderr.isatty() or total < 2)


if __name__ == "__main__":
    sys.exit(main())
