"""``agstate-grade``: grade submissions from a terminal (LAB-SPEC §7).

Exit status: 0 every graded task passed, 1 some did not, 2 usage error.
"""

import argparse
import json
import random
import sys
from pathlib import Path

from grader.runner import DEFAULT_EXAMPLES, DEFAULT_TIMEOUT, grade_submission, labs_present
from grader.tasks import LABS, TASKS

__all__ = ["main", "select_tasks", "render_text"]


class UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agstate-grade",
        description="Grade agstate lab submissions: each PATH is a directory holding an agstate/ package.",
        epilog="Repeat any run exactly with the --seed it prints.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="submission directories (default: .)")
    parser.add_argument("--lab", help=f"grade one part: {', '.join(LABS)} (default: every part present)")
    parser.add_argument("--task", nargs="+", metavar="ID", help="grade only these task ids, e.g. state.dedupe")
    parser.add_argument("--seed", type=int, help="randomization seed (default: fresh, printed)")
    parser.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES, help=f"random examples per rule (default {DEFAULT_EXAMPLES})")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help=f"seconds per task (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--json", action="store_true", help="print the JSON report on stdout and nothing else")
    return parser


def select_tasks(submission: Path, lab: str | None, task_ids: list[str] | None) -> list[str]:
    """Task ids to grade, in registry order; unknown names raise ``UsageError``."""
    if lab is not None and lab not in LABS:
        raise UsageError(f"unknown lab {lab!r}; choose one of: {', '.join(LABS)}")
    for task_id in task_ids or []:
        if task_id not in TASKS:
            raise UsageError(f"unknown task {task_id!r}; known tasks: {', '.join(TASKS)}")
    if task_ids:
        return [t for t in TASKS if t in task_ids and (lab is None or TASKS[t].lab == lab)]
    labs = [lab] if lab else labs_present(submission)
    return [t for t in TASKS if TASKS[t].lab in labs]


def render_text(report: dict) -> str:
    """A scorecard for a terminal, ending with the command that repeats the run."""
    lines = [f"agstate-grade {report['submission']} (seed {report['seed']})"]
    width = max((len(t["id"]) for t in report["tasks"]), default=10)
    for task in report["tasks"]:
        lines.append(f"  {task['id']:<{width}}  {task['score']:5.1f}/{task['max_score']:<5.1f} {task['status']}")
        if task["status"] != "passed":
            lines.append(f"  {'':<{width}}  {task['feedback']}")
    ids = [task["id"] for task in report["tasks"]]
    labs = {task["lab"] for task in report["tasks"]}
    only = "" if ids == [t for t in TASKS if TASKS[t].lab in labs] else f" --task {' '.join(ids)}"
    lines.append(f"score {report['score']:.1f}/{report['max_score']:.1f}  "
                 f"(repeat: agstate-grade {report['submission']}{only} --seed {report['seed']})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    paths = args.paths or ["."]
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    try:
        for path in paths:
            if not Path(path).is_dir():
                raise UsageError(f"no such submission directory: {path}")
        if args.examples < 1 or args.timeout <= 0:
            raise UsageError("--examples must be >= 1 and --timeout > 0")
        plans = [(path, select_tasks(Path(path), args.lab, args.task)) for path in paths]
    except UsageError as exc:
        print(f"agstate-grade: {exc}", file=sys.stderr)
        return 2
    reports = []
    for path, task_ids in plans:
        report = grade_submission(path, task_ids, seed, args.examples, args.timeout)
        reports.append(report)
        if not args.json:
            print(render_text(report), flush=True)
    if args.json:
        document = reports[0] if len(reports) == 1 else reports
        print(json.dumps(document, indent=2, ensure_ascii=False))
    passed = all(task["status"] == "passed" for report in reports for task in report["tasks"])
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
