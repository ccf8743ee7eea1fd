"""What the sandbox costs: one batch graded with bubblewrap, without it, and by an earlier version of the grader.

    .venv/bin/python benchmarks/sandbox.py [--class-size 100] [--whole-lab 8] [--rounds 3] [--jobs 2]
                                           [--baseline REV] [--seed N] [--examples 80]

Two batches, built in a temp dir from the references and the mutation corpora:

- part A, a class of ``--class-size`` submissions (references and part A
  mutants, alternating), graded with ``--lab state`` (``--part``'s old name: a baseline knows it);
- the whole lab, ``--whole-lab`` submissions (references, and mutants of
  every part in turn), every part graded.

Each batch is graded ``--rounds`` times by each method, the methods taking
turns within a round so that the machine's load falls on all of them alike:
``agstate-grade`` with its sandbox, ``agstate-grade --no-sandbox``, and (with
``--baseline REV``, e.g. the commit before the sandbox) the grader of that
commit, run from a git worktree with an environment of its own (built first,
from the package index, about a minute). The table gives the median wall time per
submission and its ratio to the unsandboxed run and to the baseline; scores
must agree between the sandbox and no sandbox (a sandbox that changed a
grade would be a bug). Wall times vary with the machine's load: compare the
ratios of one run.
"""

import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bootstrap  # noqa: F401  (first: this checkout's grader and tests/ on sys.path)
from support.corpus import Corpus
from support.paths import REFERENCE, ROOT

CORPORA = [Corpus(part) for part in ("state", "board", "events", "branches")]
STATE = CORPORA[0]
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


def reference(target: Path) -> Path:
    shutil.copytree(REFERENCE, target / "agstate", ignore=IGNORE)
    return target


def part_a_class(where: Path, size: int) -> list[Path]:
    mutants = STATE.mutants
    return [reference(where / f"student{i:04d}") if i % 2 == 0 else
            STATE.build_submission(mutants[(i // 2) % len(mutants)], where / f"student{i:04d}")
            for i in range(size)]


def whole_lab(where: Path, size: int) -> list[Path]:
    paths = []
    for i in range(size):
        target = where / f"student{i:04d}"
        if i % 2 == 0:
            paths.append(reference(target))
        else:
            corpus = CORPORA[(i // 2) % len(CORPORA)]
            paths.append(corpus.build_submission(corpus.mutants[(i // 8) % len(corpus.mutants)], target))
    return paths


def grade(code: Path, paths: list[Path], extra: list[str], args) -> tuple[float, list[float]]:
    """Seconds for one batch run of the grader in ``code`` (in its own environment, see ``worktree``), and the scores."""
    python = code / ".venv" / "bin" / "python" if (code / ".venv" / "bin" / "python").exists() else Path(sys.executable)
    command = [str(python), "-m", "grader", *map(str, paths), "--json", "--seed", str(args.seed),
               "--examples", str(args.examples), "--jobs", str(args.jobs), *extra]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=code)
    seconds = time.perf_counter() - started
    try:
        reports = json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"grading failed ({done.returncode}) in {code}: {shlex.join(command)}\n{done.stderr[-3000:]}")
    reports = reports if isinstance(reports, list) else [reports]
    if len(reports) != len(paths):
        sys.exit(f"expected {len(paths)} reports from {shlex.join(command)}, got {len(reports)}")
    return seconds, [report["score"] for report in reports]


def worktree(rev: str, where: Path) -> Path:
    """A checkout of ``rev`` with an environment of its own (``.venv``, the package installed from the checkout).

    Its own environment, not this one: the zygote starts as ``python -P -m grader.sandbox.zygote`` from "/", so with this
    environment every learner process would run this checkout's probes (its ``grader`` is installed here).
    """
    target = where / f"baseline-{rev}"
    subprocess.run(["git", "worktree", "add", "--detach", "--force", str(target), rev], cwd=ROOT, check=True,
                   capture_output=True)
    subprocess.run([sys.executable, "-m", "venv", str(target / ".venv")], check=True)
    subprocess.run([str(target / ".venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", "-e", str(target)],
                   check=True, capture_output=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--class-size", type=int, default=100)
    parser.add_argument("--whole-lab", type=int, default=8, help="submissions in the whole-lab batch (default 8)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--examples", type=int, default=80)
    parser.add_argument("--seed", type=int, default=random.SystemRandom().randrange(2**31))
    parser.add_argument("--baseline", metavar="REV", help="also time the grader of this git revision")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agstate-bench-sandbox-") as tmp:
        tmp = Path(tmp)
        # --lab: the old name of --part, which every baseline's grader also knows.
        batches = {"part A": (part_a_class(tmp / "a", args.class_size), ["--lab", "state"]),
                   "whole lab": (whole_lab(tmp / "lab", args.whole_lab), [])}
        methods = {"sandbox": (ROOT, []), "no sandbox": (ROOT, ["--no-sandbox"])}
        if args.baseline:
            methods[f"baseline {args.baseline}"] = (worktree(args.baseline, tmp), [])
        times = {(batch, method): [] for batch in batches for method in methods}
        scores = {}
        try:
            for round_number in range(args.rounds):
                for batch, (paths, extra) in batches.items():
                    order = list(methods) if round_number % 2 == 0 else list(reversed(methods))
                    for method in order:
                        code, flags = methods[method]
                        seconds, got = grade(code, paths, extra + flags, args)
                        times[batch, method].append(seconds / len(paths))
                        scores[batch, method] = got
        finally:
            if args.baseline:
                subprocess.run(["git", "worktree", "remove", "--force", str(methods[f'baseline {args.baseline}'][0])],
                               cwd=ROOT, capture_output=True)
    print(f"\n{'batch':<10} {'method':<22} {'s per submission':>17} {'vs no sandbox':>14}"
          + (f" {'vs baseline':>12}" if args.baseline else ""))
    for batch in batches:
        plain = statistics.median(times[batch, "no sandbox"])
        base = statistics.median(times[batch, f"baseline {args.baseline}"]) if args.baseline else None
        for method in methods:
            value = statistics.median(times[batch, method])
            line = f"{batch:<10} {method:<22} {value:17.3f} {value / plain:13.2f}x"
            print(line + (f" {value / base:11.2f}x" if base else ""))
    for batch in batches:
        same = scores[batch, "sandbox"] == scores[batch, "no sandbox"]
        print(f"{batch}: scores with and without the sandbox {'agree' if same else 'DIFFER'} "
              f"(mean {statistics.mean(scores[batch, 'sandbox']):.1f})")
    print(f"\n{args.class_size} part A submissions, {args.whole_lab} whole-lab ones; median of {args.rounds} rounds, "
          f"--jobs {args.jobs}, --examples {args.examples}; whole run {time.perf_counter() - started:.0f} s")
    print(repeat_line("sandbox.py", args.seed))


def repeat_line(script: str, seed: int) -> str:
    """The command that repeats this run of ``benchmarks/<script>``, with the seed it drew."""
    seeded = sys.argv[1:] + ([] if "--seed" in sys.argv else ["--seed", str(seed)])
    return f"repeat: cd {ROOT} && {shlex.join([sys.executable, f'benchmarks/{script}', *seeded])}"


if __name__ == "__main__":
    main()
