"""Where a whole-lab batch's time goes: per part, per task and per rule, the grader's work and the learner's child.

    .venv/bin/python benchmarks/profile.py [--submissions 8] [--jobs 2] [--seed N] [--examples 80]
                                           [--rules 15] [--baseline REV] [--references]

Grades a batch built like ``benchmarks/sandbox.py``'s whole-lab one (references,
and mutants of every part in turn; references only with ``--references``), sandbox on, every part, with
``grade_many(..., costs="profile")``. Each task's seconds are split
(``grader.engine.costs``) into

- the task's start: its sandbox and learner process made (``start``), the
  learner's module imported (``import``, as the child measured it);
- the grader's own work: ``drawing`` examples (Hypothesis; once per batch, so
  only the first submission pays it), ``judging`` (the model, comparing),
  ``shrinking`` (a failure found again and shrunk);
- the learner's child: ``child`` (its calls and graph runs, as the child
  measured them) and ``transport`` (round trips, encoding, decoding);

with the number of random ``cases`` each rule ran. Figures are totals over the
batch divided by the number of submissions. ``--baseline REV`` also times the
same batch graded by the grader of that git revision (from a worktree), in the
same run, for a ratio. Wall times vary with the machine's load: compare the
figures of one run.
"""

import argparse
import os
import random
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import bootstrap  # noqa: F401  (first: this checkout's grader and tests/ on sys.path)
from sandbox import grade, reference, repeat_line, whole_lab, worktree
from support.paths import ROOT

from grader.engine import batch
from grader.engine.registry import TASKS

COLUMNS = ["wall", "start", "import", "drawing", "judging", "shrinking", "child", "transport"]


def add_rule(into: Counter, rule: dict) -> None:
    """Add one rule's profile into ``into``'s totals: its seconds by column, its own wall time, its cases."""
    seconds = {column: rule[column] for column in ("drawing", "judging", "shrinking", "transport")}
    seconds["child"] = sum(rule["child"].values())
    into.update(seconds)
    into["rules wall"] += sum(seconds.values())
    into["cases"] += rule["cases"]


def add_task(into: Counter, task: dict) -> None:
    """Add one task's profile into ``into``'s totals: its rules', its start and import, its wall time."""
    for rule in task["profile"]["rules"]:
        add_rule(into, rule)
    into["wall"] += task["seconds"]
    into["start"] += task["profile"]["start"]
    into["import"] += task["profile"]["import"]


def table(title: str, rows: list[tuple[str, Counter]], count: int) -> None:
    print(f"\n{title} (seconds per submission; cases per submission)")
    print(f"  {'':<44}" + "".join(f"{c:>10}" for c in COLUMNS) + f"{'cases':>8}")
    for name, totals in rows:
        print(f"  {name:<44}" + "".join(f"{totals[c] / count:10.3f}" for c in COLUMNS) + f"{totals['cases'] / count:8.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--examples", type=int, default=80)
    parser.add_argument("--seed", type=int, default=random.SystemRandom().randrange(2**31))
    parser.add_argument("--rules", type=int, default=15, help="the costliest rules to list (default 15)")
    parser.add_argument("--references", action="store_true",
                        help="references only: the cost of a class that passes everything (no shrinking)")
    parser.add_argument("--baseline", metavar="REV", help="also time the batch graded by the grader of this git revision")
    args = parser.parse_args()
    reports = {}
    with tempfile.TemporaryDirectory(prefix="agstate-bench-profile-") as tmp:
        where = Path(tmp) / "lab"
        paths = ([reference(where / f"student{i:04d}") for i in range(args.submissions)] if args.references
                 else whole_lab(where, args.submissions))
        plans = [(str(path), list(TASKS)) for path in paths]
        started = time.perf_counter()
        batch.grade_many(plans, args.seed, args.examples, 20.0, 1024, args.jobs,
                         lambda index, report: reports.__setitem__(index, report), costs="profile")
        wall = time.perf_counter() - started
        base = None
        if args.baseline:
            code = worktree(args.baseline, Path(tmp))
            try:
                base, _ = grade(code, paths, [], args)
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(code)], cwd=ROOT, capture_output=True)
    count = len(paths)
    by_part, by_task, by_rule = defaultdict(Counter), defaultdict(Counter), defaultdict(Counter)
    child_probes = defaultdict(Counter)
    for report in reports.values():
        for task in report["tasks"]:
            add_task(by_part[task["part"]], task)
            add_task(by_task[task["id"]], task)
            rules = task.get("rules") or []
            for number, rule in enumerate(task["profile"]["rules"]):
                sentence = rules[number]["rule"] if number < len(rules) else f"rule {number + 1}"
                into = by_rule[f"{task['id']}: {sentence}"]
                add_rule(into, rule)
                into["wall"] = into["rules wall"]
                child_probes[task["part"]].update(rule["child"])
    table("By part", sorted(by_part.items(), key=lambda item: list(TASKS).index(next(t for t in TASKS if TASKS[t].part == item[0]))),
          count)
    table("By task", [(task, by_task[task]) for task in TASKS if task in by_task], count)
    costliest = sorted(by_rule.items(), key=lambda item: -item[1]["wall"])[:args.rules]
    table(f"The {len(costliest)} costliest rules (wall: the rule's own seconds, start excluded)",
          [(name[:44], totals) for name, totals in costliest], count)
    print("\nThe child's seconds by probe, per submission:")
    for part, probes in child_probes.items():
        top = ", ".join(f"{name} {seconds / count:.3f}" for name, seconds in probes.most_common(6))
        print(f"  {part}: {top}")
    total = sum(totals["wall"] for totals in by_part.values())
    cases = {part: totals["cases"] / count for part, totals in by_part.items()}
    print(f"\n{count} submissions, --jobs {args.jobs}, --examples {args.examples}, seed {args.seed}: batch wall "
          f"{wall:.1f} s, {wall / count:.2f} s per submission; tasks' own seconds {total / count:.2f} per submission")
    print("cases per part per submission: " + ", ".join(f"{part} {n:.0f}" for part, n in cases.items()))
    if base is not None:
        print(f"baseline {args.baseline}: {base / count:.2f} s per submission; this grader {wall / count:.2f} "
              f"({base / wall:.1f}x faster)")
    print(repeat_line("profile.py", args.seed))


if __name__ == "__main__":
    main()
