"""Every corpus graded by one grader, as JSON: to show that a change to the grader changed no report.

    .venv/bin/python tests/support/snapshot_reports.py OUT.json [--python PYTHON] [--only mutants,hostile]

Builds, from this checkout's corpora, the reference and every mutant of each
part, and every case of the hostile corpus (its placeholders given fixed
values, so the same submission is built every time), in fixed folders under
``/tmp/agstate-snapshot``; grades them with ``PYTHON -m grader`` (default:
this environment's; give another checkout's to grade with its grader), part
by part in one batch each, on fixed seeds; and writes every report, keyed by
corpus and name, with its folder made relative. Two snapshots, one by the
grader before a change and one after, are compared with ``--compare A B``:
the reports that differ are listed, field by field. Not a test: the hostile
corpus leaves nothing running only when ``tests/test_hostile.py`` checks so.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a file, Python put tests/support/ first on sys.path: tests/ instead, whose packages these are
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from hostile.cases import CASES, build_submission

from support import submissions
from support.corpus import corpora
from support.paths import REFERENCE

CORPORA = corpora()
ROOT = Path("/tmp/agstate-snapshot")
MUTANT_SEED, HOSTILE_SEED = 31, 5
# Fixed stand-ins for the hostile corpus's per-run values: the same source every time.
VALUES = {"HOSTILE_TOKEN": "snapshot0token", "HOSTILE_DIR": str(ROOT / "hostile-dir"), "VICTIM_FILE": str(ROOT / "victim" / "notes.txt"),
          "VICTIM_DIR": str(ROOT / "victim"), "NEIGHBOUR_STATE": str(ROOT / "hostile" / "neighbour" / "agstate" / "state.py"),
          "GRADEBOOK": str(ROOT / "victim" / "grades.csv"), "REFERENCE_FILE": str(REFERENCE / "state.py"),
          "SUBMISSIONS_ROOT": str(ROOT / "hostile"), "SUBMISSIONS_ROOT_REVERSED": str(ROOT / "hostile")[::-1],
          "CLASSMATE_MARK_REVERSED": "CLASSMATE-snapshot-SECRET"[::-1], "LISTEN_PORT": "9", "ABSTRACT_SOCKET": "agstate-snapshot"}


def grade(python: str, paths: list[Path], args: list[str]) -> list[dict]:
    done = subprocess.run([python, "-m", "grader", *map(str, paths), "--json", *args], capture_output=True, text=True,
                          cwd="/", timeout=7200)
    found = json.loads(done.stdout)
    return found if isinstance(found, list) else [found]


def relative(report: dict) -> dict:
    return {**report, "submission": os.path.relpath(report["submission"], ROOT)}


def snapshot(python: str, only: set[str]) -> dict:
    shutil.rmtree(ROOT, ignore_errors=True)
    out = {}
    if "mutants" in only:
        for corpus in CORPORA:
            folder = ROOT / "mutants" / corpus.name
            paths = [submissions.build_submission(folder / "reference")]
            names = ["reference", *(mutant.name for mutant in corpus.mutants)]
            paths += [corpus.build_submission(mutant, folder / mutant.name) for mutant in corpus.mutants]
            reports = grade(python, paths, ["--part", corpus.name, "--seed", str(MUTANT_SEED), "--examples",
                                            str(corpus.examples), "--timeout", "60", "--jobs", "1"])
            out |= {f"mutants/{corpus.name}/{name}": relative(report) for name, report in zip(names, reports)}
            print(f"{corpus.name}: {len(reports)} graded", file=sys.stderr)
    if "hostile" in only:
        folder = ROOT / "hostile"
        (ROOT / "hostile-dir").mkdir(parents=True, exist_ok=True)
        (ROOT / "victim").mkdir(exist_ok=True)
        paths = [submissions.build_submission(folder / "reference"), submissions.build_submission(folder / "neighbour")]
        paths += [build_submission(case, folder / case.name, VALUES) for case in CASES]
        names = ["reference", "neighbour", *(case.name for case in CASES)]
        reports = grade(python, paths, ["--part", "state", "--seed", str(HOSTILE_SEED), "--examples", "20", "--timeout", "8",
                                        "--jobs", "2"])
        out |= {f"hostile/{name}": relative(report) for name, report in zip(names, reports)}
        print(f"hostile: {len(reports)} graded", file=sys.stderr)
    shutil.rmtree(ROOT, ignore_errors=True)
    return out


def compare(before: dict, after: dict) -> int:
    differ = 0
    for key in sorted(set(before) | set(after)):
        if before.get(key) == after.get(key):
            continue
        differ += 1
        print(f"{key}:")
        old, new = before.get(key) or {}, after.get(key) or {}
        for number, (a, b) in enumerate(zip(old.get("tasks", []), new.get("tasks", []))):
            for field in sorted(set(a) | set(b)):
                if a.get(field) != b.get(field):
                    print(f"  task {number} {a.get('id')} {field}: {json.dumps(a.get(field))[:300]}\n"
                          f"  {'':>{len(str(number)) + 6 + len(str(a.get('id')))}} -> {json.dumps(b.get(field))[:300]}")
        for field in sorted((set(old) | set(new)) - {"tasks"}):
            if old.get(field) != new.get(field):
                print(f"  {field}: {old.get(field)!r} -> {new.get(field)!r}")
    print(f"{len(set(before) | set(after))} reports, {differ} differ")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", help="where to write the snapshot (JSON)")
    parser.add_argument("--python", default=sys.executable, help="the grader's interpreter (default: this one)")
    parser.add_argument("--only", default="mutants,hostile", help="which corpora: mutants, hostile (default: both)")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two snapshots")
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(Path(path).read_text()) for path in args.compare)
        return compare(before, after)
    if not args.out:
        parser.error("give OUT.json, or --compare BEFORE AFTER")
    Path(args.out).write_text(json.dumps(snapshot(args.python, set(args.only.split(","))), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
