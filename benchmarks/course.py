"""Time the instructor's nbgrader pipeline on the end-to-end test's students, next to agstate-grade.

    .venv/bin/python benchmarks/course.py [--examples 80] [--seed 4242]

Builds a course with ``agstate-course init`` in a temporary directory, places
part A and the students of ``tests/test_course.py`` (a reference, two mutants, the stub,
two hostile submissions and one without its package), then times each nbgrader
step and ``agstate-grade`` on the same submissions, in one run.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_course import ASSIGNMENT, BIN, place_students, run  # noqa: E402


def timed(label: str, *args, cwd: Path, figures: dict) -> subprocess.CompletedProcess:
    start = time.perf_counter()
    done = run(*args, cwd=cwd, timeout=7200)
    figures[label] = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{label} failed:\n{done.stderr[-3000:]}")
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=80)
    parser.add_argument("--seed", type=int, default=4242)
    args = parser.parse_args()
    figures = {}
    with tempfile.TemporaryDirectory() as scratch:
        course = Path(scratch) / "course"
        settings = ["--seed", str(args.seed), "--examples", str(args.examples)]
        timed("agstate-course init", BIN / "agstate-course", "init", course, "--lab", "state", *settings,
              cwd=ROOT, figures=figures)
        timed("nbgrader generate_assignment", BIN / "nbgrader", "generate_assignment", ASSIGNMENT, cwd=course,
              figures=figures)
        release = course / "release" / ASSIGNMENT
        shutil.copytree(release, course / "submitted" / "ada" / ASSIGNMENT)
        shutil.copy(ROOT / "solutions" / "agstate" / "state.py", course / "submitted" / "ada" / ASSIGNMENT / "agstate")
        students = ["ada", *place_students(course, release)]
        timed("nbgrader autograde", BIN / "nbgrader", "autograde", ASSIGNMENT, "--force", cwd=course, figures=figures)
        timed("nbgrader generate_feedback", BIN / "nbgrader", "generate_feedback", ASSIGNMENT, "--force",
              cwd=course, figures=figures)
        timed("nbgrader export", BIN / "nbgrader", "export", "--to", course / "grades.csv", cwd=course,
              figures=figures)
        paths = [course / "submitted" / s / ASSIGNMENT for s in students]
        ours = timed("agstate-grade (same submissions, --jobs 2)", sys.executable, "-m", "grader", *paths, "--json",
                     "--lab", "state", *settings, "--jobs", "2", cwd=ROOT, figures=figures)
        exported = {row["student_id"]: float(row["score"]) for row in csv.DictReader((course / "grades.csv").open())}
        reports = dict(zip(students, json.loads(ours.stdout)))
    print(f"{len(students)} students, part A, seed {args.seed}, {args.examples} examples per rule\n")
    print("| step | seconds |\n|---|---|")
    for label, seconds in figures.items():
        print(f"| {label} | {seconds:.1f} |")
    print(f"\nautograde per student: {figures['nbgrader autograde'] / len(students):.1f} s")
    print("\n| student | nbgrader export | agstate-grade |\n|---|---|---|")
    for student in students:
        print(f"| {student} | {exported[student]:g} | {reports[student]['score']:g} |")


if __name__ == "__main__":
    main()
