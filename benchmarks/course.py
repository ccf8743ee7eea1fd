"""Time nbgrader autograde of the whole lab next to agstate-grade on the same submissions, in one run.

    .venv/bin/python benchmarks/course.py [--students 12] [--examples 80] [--seed 4242] [--jobs 2]

Builds a course of every part with ``agstate-course init`` in a temporary
directory, then a class of ``--students`` submissions in nbgrader's layout,
cycling through: the reference, one mutant of each part (from
``tests/mutants``), and the untouched stub. Times ``nbgrader autograde``,
``generate_feedback`` and ``export``, then ``agstate-grade`` on the same
submitted folders with ``--jobs``, and prints the per-submission cost of each
and their ratio, with every student's two scores side by side.
"""

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bootstrap  # noqa: F401  (first: this checkout's grader and tests/ on sys.path)
from support.corpus import corpora
from support.paths import ROOT
from test_course import ASSIGNMENT, BIN, run

CORPORA = {corpus.module: corpus for corpus in corpora()}  # one per part, by its module's file name
MUTANTS = [(module, corpus.mutants[len(corpus.mutants) // 2]) for module, corpus in CORPORA.items()]


def timed(label: str, *args, cwd: Path, figures: dict) -> subprocess.CompletedProcess:
    start = time.perf_counter()
    done = run(*args, cwd=cwd, timeout=7200)
    figures[label] = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{label} failed:\n{done.stderr[-3000:]}")
    return done


def place_class(course: Path, students: int) -> list[str]:
    release = course / "release" / ASSIGNMENT
    kinds = ["reference", *[f"mutant_{module[:-3]}_{m.name}" for module, m in MUTANTS], "stub"]
    names = []
    for number in range(students):
        kind = kinds[number % len(kinds)]
        name = f"s{number:03d}_{kind}"
        submission = course / "submitted" / name / ASSIGNMENT
        shutil.copytree(release, submission)
        if kind != "stub":
            for module in CORPORA:
                shutil.copy(ROOT / "solutions" / "agstate" / module, submission / "agstate" / module)
        for module, mutant in MUTANTS:
            if kind == f"mutant_{module[:-3]}_{mutant.name}":
                (submission / "agstate" / module).write_text(CORPORA[module].mutant_source(mutant))
        names.append(name)
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=12)
    parser.add_argument("--examples", type=int, default=80)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    figures = {}
    with tempfile.TemporaryDirectory() as scratch:
        course = Path(scratch) / "course"
        settings = ["--seed", str(args.seed), "--examples", str(args.examples)]
        timed("agstate-course init", BIN / "agstate-course", "init", course, *settings, cwd=ROOT, figures=figures)
        with (course / "nbgrader_config.py").open("a") as config:
            config.write(f"c.ScoreChecks.jobs = {args.jobs}\n")
        timed("nbgrader generate_assignment", BIN / "nbgrader", "generate_assignment", ASSIGNMENT, cwd=course,
              figures=figures)
        students = place_class(course, args.students)
        timed("nbgrader autograde", BIN / "nbgrader", "autograde", ASSIGNMENT, cwd=course, figures=figures)
        timed("nbgrader generate_feedback", BIN / "nbgrader", "generate_feedback", ASSIGNMENT, cwd=course,
              figures=figures)
        timed("nbgrader export", BIN / "nbgrader", "export", "--to", course / "nbgrader-grades.csv", cwd=course,
              figures=figures)
        paths = [course / "submitted" / s / ASSIGNMENT for s in students]
        ours = timed(f"agstate-grade (same submissions, --jobs {args.jobs})", sys.executable, "-m", "grader", *paths,
                     "--json", *settings, "--jobs", str(args.jobs), cwd=ROOT, figures=figures)
        exported = {row["student_id"]: float(row["score"])
                    for row in csv.DictReader((course / "nbgrader-grades.csv").open())}
        reports = dict(zip(students, json.loads(ours.stdout)))
    print(f"{len(students)} students, the whole lab, seed {args.seed}, {args.examples} examples per rule\n")
    print("| step | seconds |\n|---|---|")
    for label, seconds in figures.items():
        print(f"| {label} | {seconds:.1f} |")
    autograde = figures["nbgrader autograde"] / len(students)
    batch = figures[f"agstate-grade (same submissions, --jobs {args.jobs})"] / len(students)
    print(f"\nper submission: nbgrader autograde {autograde:.2f} s, agstate-grade {batch:.2f} s "
          f"(autograde / agstate-grade = {autograde / batch:.2f})")
    print("\n| student | nbgrader export | agstate-grade |\n|---|---|---|")
    differ = 0
    for student in students:
        differ += exported[student] != reports[student]["score"]
        print(f"| {student} | {exported[student]:g} | {reports[student]['score']:g} |")
    print(f"\n{differ} scores differ" if differ else "\nevery score agrees")


if __name__ == "__main__":
    main()
