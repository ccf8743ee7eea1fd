"""Grading speed: agstate-grade (batch, and one fresh interpreter per submission) against nbgrader autograde.

    .venv/bin/python benchmarks/grading.py [--copies 4] [--mutants 6] [--hostile 1] [--seed N]
                                           [--timeout 20] [--examples 80] [--jobs J] [--skip-nbgrader]
                                           [--class-size N]

All three methods grade the same mixed set, built in a temp dir: copies of the
reference, mutants from tests/mutants/state_mutants.py, the untouched stub and
(--hostile 1) one submission whose keep_max loops forever. --class-size N then
times our batch alone on N submissions (references and mutants, cycled): the
per-submission cost once the batch's one-off start-up is shared by a class. Only the grading commands
are timed; building the nbgrader course and exporting its grades are not.
Wall times vary with the machine's load: compare figures from one run.
"""

import argparse
import csv
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bootstrap  # noqa: F401  (first: this checkout's grader and tests/ on sys.path)
import nbformat
from support.corpus import Corpus
from support.paths import REFERENCE, ROOT

from grader.engine.registry import TASKS

STATE = Corpus("state")
MUTANTS = STATE.mutants

ASSIGNMENT = "part_a"
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")


# -- the submissions -------------------------------------------------------------------
def build_submissions(where: Path, copies: int, mutants: int, hostile: int = 1) -> dict[str, Path]:
    """name -> submission directory (holding agstate/), in grading order."""
    subs = {}
    for i in range(1, copies + 1):
        subs[f"reference{i}"] = copy_package(REFERENCE, where / f"reference{i}")
    # Evenly spread over the corpus, so the picks touch different tasks.
    for mutant in [MUTANTS[i * len(MUTANTS) // mutants] for i in range(mutants)]:
        subs[f"mutant_{mutant.name}"] = STATE.build_submission(mutant, where / f"mutant_{mutant.name}")
    subs["stub"] = copy_package(ROOT / "agstate", where / "stub")
    if hostile:
        looping = copy_package(REFERENCE, where / "hostile")
        state = looping / "agstate" / "state.py"
        state.write_text(state.read_text().replace("def keep_max(old, new):\n", "def keep_max(old, new):\n    while True: pass\n", 1))
        subs["hostile"] = looping
    return subs


def time_class(where: Path, size: int, args) -> tuple[float, float]:
    """Seconds per submission for one batch over ``size`` references and mutants: in the sandbox, and without it."""
    paths = []
    for i in range(size):
        target = where / f"student{i:04d}"
        if i % 2 == 0:
            paths.append(copy_package(REFERENCE, target))
        else:
            paths.append(STATE.build_submission(MUTANTS[(i // 2) % len(MUTANTS)], target))
    sandboxed, reports = run_grader(paths, args, args.jobs)
    unsandboxed, plain = run_grader(paths, args, args.jobs, ["--no-sandbox"])
    assert len(reports) == len(plain) == size and [r["score"] for r in reports] == [r["score"] for r in plain]
    return sandboxed / size, unsandboxed / size


def copy_package(package: Path, directory: Path) -> Path:
    shutil.copytree(package, directory / "agstate", ignore=IGNORE)
    return directory


# -- our grader ------------------------------------------------------------------------
def run_grader(paths: list[Path], args, jobs: int | None, extra: tuple[str, ...] = ()) -> tuple[float, list[dict]]:
    """Seconds for one `python -m grader PATHS --json` and its reports, in argument order."""
    command = [sys.executable, "-m", "grader", *map(str, paths), "--json", "--seed", str(args.seed), "--part", "state",
               "--timeout", str(args.timeout), "--examples", str(args.examples), *extra]
    command += ["--jobs", str(jobs)] if jobs else []
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - started
    try:  # exit status 1 only says some task failed, which the mutants must; a crash leaves no JSON
        reports = json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"grader failed ({done.returncode}): {shlex.join(command)}\n{done.stderr[-3000:]}")
    return seconds, reports if isinstance(reports, list) else [reports]


def time_baseline(paths: list[Path], args) -> tuple[float, list[dict]]:
    """One fresh interpreter per submission, one after another: every run pays the imports again."""
    runs = [run_grader([path], args, jobs=None) for path in paths]
    return sum(seconds for seconds, _ in runs), [report for _, [report] in runs]


# -- nbgrader: the same checks, written the way an nbgrader lab usually is -------------

SETUP = '''\
import warnings
warnings.filterwarnings("ignore")  # any stderr output zeroes an autograded cell
import copy, itertools, time
from typing import Annotated
from typing_extensions import TypedDict
from hypothesis import HealthCheck, given, seed, settings, strategies as st
from langgraph.graph import END, START, StateGraph
settings.register_profile("grading", max_examples=EXAMPLES, deadline=None, database=None,
                          suppress_health_check=list(HealthCheck))
settings.load_profile("grading")
word = st.text(max_size=4)
olds = st.none() | st.lists(word, max_size=6)
news = st.lists(word, max_size=6) | st.tuples(word, word) | word
writes = st.lists(news, min_size=1, max_size=6)
items = lambda new: list(new) if isinstance(new, (list, tuple)) else [new]
flat = lambda ws: [i for w in ws for i in items(w)]
def check_reducer(fn, model, old, new):
    before = copy.deepcopy((old, new))
    got = fn(old, new)
    assert type(got) is list and got == model(old, new), f"{fn.__name__}({old!r}, {new!r}) returned {got!r}"
    assert (old, new) == before and got is not old, f"{fn.__name__} mutated or returned an argument"
def raises(error, fn, *args):
    try:
        fn(*args)
    except error:
        return True
    return False
def run_graph(schema, key, values, parallel=False):
    """Nodes n0, n1, ... write values[i] to key: one after another, or all in one step."""
    builder = StateGraph(schema)
    names = [f"n{i}" for i in range(len(values))]
    for name, value in zip(names, values):
        builder.add_node(name, lambda state, value=value: {key: value})
    chain = list(zip([START, *names], [*names, END]))
    for a, b in [(START, n) for n in names] + [(n, END) for n in names] if parallel else chain:
        builder.add_edge(a, b)
    return builder.compile().invoke({})
'''

CHECKS = {
    "state.overwrite": '''\
from langgraph.errors import InvalidUpdateError
@seed(SEED)
@given(st.lists(st.lists(word, max_size=3), min_size=2, max_size=5))
def test(values):
    assert run_graph(S.NaiveState, "trace", values)["trace"] == values[-1]
    assert raises(InvalidUpdateError, run_graph, S.NaiveState, "trace", values, True), "parallel writes did not raise"
test()''',
    "state.append": '''\
@seed(SEED)
@given(olds, news, writes)
def test(old, new, ws):
    check_reducer(S.append, lambda o, n: [*(o or []), *items(n)], old, new)
    assert run_graph(S.State, "trace", ws)["trace"] == flat(ws)
test()''',
    "state.budget": '''\
@seed(SEED)
@given(st.lists(st.integers(-10**9, 10**9), min_size=1, max_size=6), st.booleans())
def test(calls, parallel):
    assert run_graph(S.State, "used_calls", calls, parallel)["used_calls"] == sum(calls)
test()''',
    "state.dedupe": '''\
@seed(SEED)
@given(olds, news, writes, st.booleans())
def test(old, new, ws, parallel):
    check_reducer(S.merge_sources, lambda o, n: list(dict.fromkeys([*(o or []), *items(n)])), old, new)
    assert run_graph(S.State, "sources", ws, parallel)["sources"] == list(dict.fromkeys(flat(ws)))
test()
big = [f"doc{i}" for i in range(50_000)]
started = time.perf_counter()
assert S.merge_sources(big, big[::-1]) == big
assert time.perf_counter() - started < 1.0, "merge_sources is not linear"''',
    "state.keep_max": '''\
opt = st.none() | st.integers()
@seed(SEED)
@given(opt, opt, opt, st.lists(st.integers(-100, 100), min_size=1, max_size=5), st.booleans())
def test(a, b, c, scores, parallel):
    k = S.keep_max
    assert k(a, b) == (a if b is None else b if a is None else max(a, b))
    assert k(a, b) == k(b, a) and k(k(a, b), c) == k(a, k(b, c)) and k(a, a) == a
    assert run_graph(S.State, "best_score", scores, parallel)["best_score"] == max(scores)
test()
assert S.keep_max(None, None) is None and S.keep_max("a", "b") == "b" and S.keep_max(-0.5, -1) == -0.5''',
    "state.window": '''\
@seed(SEED)
@given(st.integers(1, 8), olds, news, writes)
def test(n, old, new, ws):
    check_reducer(S.keep_recent, lambda o, w: [*(o or []), *items(w)][-S.WINDOW:], old, new)
    check_reducer(S.windowed(n), lambda o, w: [*(o or []), *items(w)][-n:], old, new)
    assert run_graph(S.State, "recent", ws)["recent"] == flat(ws)[-S.WINDOW:]
    Windowed = TypedDict("Windowed", {"items": Annotated[list[str], S.windowed(n)]})
    assert run_graph(Windowed, "items", ws)["items"] == flat(ws)[-n:]
@seed(SEED)
@given(st.integers(max_value=0) | st.floats() | st.text(max_size=2) | st.just(True))
def test_bad(n):
    assert raises(ValueError, S.windowed, n), f"windowed({n!r}) did not raise ValueError"
test(); test_bad()''',
    "state.schemas": '''\
from langgraph.checkpoint.memory import InMemorySaver
assert set(S.InputState.__annotations__) == {"question"}
assert set(S.OutputState.__annotations__) == {"answer", "trace", "sources", "used_calls"}
graph, threads = S.build_graph(InMemorySaver()), itertools.count()
@seed(SEED)
@given(st.text(min_size=1, max_size=20))
def test(question):
    config = {"configurable": {"thread_id": str(next(threads))}}
    out = graph.invoke({"question": question, "notes": ["injected"]}, config)
    assert set(out) == {"answer", "trace", "sources", "used_calls"} and isinstance(out["answer"], str)
    assert out["trace"] == ["intake", *["lookup"] * S.LOOKUP_ROUNDS, "finish"]
    assert len(out["sources"]) == len(set(out["sources"])) and out["used_calls"] == S.LOOKUP_ROUNDS
    assert "injected" not in graph.get_state(config).values.get("notes", [])
    assert run_graph(S.State, "answer", [question, "final"])["answer"] == "final", "answer must be overwritten"
test()''',
    "state.decisions": '''\
keys = {"question", "trace", "sources", "used_calls", "best_score", "recent", "notes", "answer"}
assert set(S.DECISIONS) == set(S.State.__annotations__) == keys
assert all(isinstance(v, str) and v.strip() for v in S.DECISIONS.values())''',
}


def checks_notebook(examples: int, seed: int) -> nbformat.NotebookNode:
    """One locked setup cell, then one autograded test cell per part-A task."""
    def cell(source: str, grade_id: str, points: int | None) -> nbformat.NotebookNode:
        meta = {"grade": points is not None, "grade_id": grade_id, "locked": True, "schema_version": 3,
                "solution": False, "task": False}
        return nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta | ({"points": points} if points else {})})
    setup = SETUP.replace("EXAMPLES", str(examples)) + f"SEED = {seed}\n"
    cells = [cell(setup, "setup", None)]
    for task_id, code in CHECKS.items():
        cells.append(cell(f"import agstate.state as S\n{code}\n", task_id.replace(".", "_"), TASKS[task_id].max_score))
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernel})


def write_course(course: Path, args) -> None:
    """nbgrader_config.py (absolute paths: nbgrader resolves relative ones per command) and source/."""
    (course / "nbgrader_config.py").write_text(f'''c = get_config()
c.CourseDirectory.root = {str(course)!r}
c.CourseDirectory.db_url = "sqlite:///{course / 'gradebook.db'}"
c.Exchange.root = {str(course / 'exchange')!r}
c.Execute.timeout = {max(1, round(args.timeout))}
# Without this, autograde replaces the student's state.py with the source copy (the stub).
c.Autograde.exclude_overwriting = {{{ASSIGNMENT!r}: ["agstate/state.py"]}}
''')
    source = course / "source" / ASSIGNMENT
    copy_package(ROOT / "agstate", source)
    nbformat.write(checks_notebook(args.examples, args.seed), source / "checks.ipynb")


def nbgrader(course: Path, *argv: str) -> float:
    """Seconds for one nbgrader command run in the course directory; exits on failure."""
    bin_dir = Path(sys.executable).parent
    # nbgrader's gradebook runs `alembic` found on PATH: without an activated venv it is not there.
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    started = time.perf_counter()
    done = subprocess.run([str(bin_dir / "nbgrader"), *argv], cwd=course, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"nbgrader {' '.join(argv)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
    return seconds


def time_nbgrader(subs: dict[str, Path], where: Path, args) -> tuple[float, dict[str, float], float]:
    """Build the course, submit every submission, time `autograde --force`; return seconds, scores, max."""
    course = where / "course"
    course.mkdir()
    write_course(course, args)
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    for name, path in subs.items():
        submitted = course / "submitted" / name / ASSIGNMENT
        shutil.copytree(path / "agstate", submitted / "agstate", ignore=IGNORE)
        shutil.copy(course / "release" / ASSIGNMENT / "checks.ipynb", submitted)
    seconds = nbgrader(course, "autograde", ASSIGNMENT, "--force")
    nbgrader(course, "export", "--to", str(course / "grades.csv"))
    with open(course / "grades.csv", newline="") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    if missing := [name for name in subs if not rows.get(name, {}).get("score")]:
        sys.exit(f"nbgrader export has no score for: {', '.join(missing)}")
    return seconds, {name: float(rows[name]["score"]) for name in subs}, float(rows[next(iter(subs))]["max_score"])


# -- the report ------------------------------------------------------------------------
def print_report(names: list[str], scores: dict[str, list[float]], seconds: dict[str, float]) -> None:
    """Scores side by side (a sanity check), then time: total, per submission, and x-times faster than the others."""
    print(f"\n{'submission':<40}" + "".join(f"{label:>10}" for label in scores))
    for i, name in enumerate(names):
        print(f"{name:<40}" + "".join(f"{column[i]:10.1f}" for column in scores.values()))
    nb, base = seconds.get("nbgrader autograde"), seconds["agstate-grade fresh"]
    print(f"\n{'method':<34} {'total s':>8} {'per sub s':>10} {'vs nbgrader':>12} {'vs baseline':>12}")
    for label, total in seconds.items():
        versus_nb = f"{nb / total:11.2f}x" if nb else f"{'-':>12}"
        print(f"{label:<34} {total:8.2f} {total / len(names):10.3f} {versus_nb} {base / total:11.2f}x")


def check_sanity(names: list[str], scores: dict[str, list[float]], maxima: dict[str, float]) -> None:
    """Reference full marks and stub zero in every method (else one graded the wrong package); same seed, same scores."""
    problems = [f"{name}: batch {b} != fresh {f}" for name, b, f in zip(names, *list(scores.values())[:2]) if b != f]
    for label, column in scores.items():
        for name, score in zip(names, column):
            want = {"reference": maxima[label], "stub": 0.0}.get(name.rstrip("0123456789"))
            if want is not None and score != want:
                problems.append(f"{label} gave {name} {score}, expected {want}")
    print("\nsanity: " + ("; ".join(problems) or "reference full marks, stub zero in every method; batch == fresh"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=4, help="copies of the reference solution (default 4)")
    parser.add_argument("--mutants", type=int, default=6, help=f"mutants, spread over the {len(MUTANTS)} in the corpus")
    parser.add_argument("--seed", type=int, default=random.SystemRandom().randrange(2**31), help="default: fresh")
    parser.add_argument("--hostile", type=int, choices=[0, 1], default=1, help="include the endless-loop submission")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per task (ours) and per cell (nbgrader); default: the CLI's")
    parser.add_argument("--examples", type=int, default=80, help="random examples per rule / per @given; default: the CLI's")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="workers for our batch (default: cores)")
    parser.add_argument("--skip-nbgrader", action="store_true")
    parser.add_argument("--class-size", type=int, default=0, help="also time our batch alone on this many submissions")
    args = parser.parse_args()
    if not 0 <= args.mutants <= len(MUTANTS):
        parser.error(f"--mutants must be between 0 and {len(MUTANTS)}")
    jobs = args.jobs
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agstate-bench-") as tmp:
        subs = build_submissions(Path(tmp) / "subs", args.copies, args.mutants, args.hostile)
        names, paths = list(subs), list(subs.values())
        batch_label = "agstate-grade batch" + (f" --jobs {jobs}" if jobs else "")
        seconds, ours = {}, {}
        seconds[batch_label], ours["batch"] = run_grader(paths, args, jobs)
        seconds["agstate-grade fresh"], ours["fresh"] = time_baseline(paths, args)
        scores = {label: [r["score"] for r in reports] for label, reports in ours.items()}
        maxima = {label: reports[0]["max_score"] for label, reports in ours.items()}
        if not args.skip_nbgrader:
            seconds["nbgrader autograde"], nb_scores, maxima["nbgrader"] = time_nbgrader(subs, Path(tmp), args)
            scores["nbgrader"] = [nb_scores[name] for name in names]
        per_student = time_class(Path(tmp) / "class", args.class_size, args) if args.class_size else None
    print_report(names, scores, seconds)
    if per_student is not None:
        sandboxed, unsandboxed = per_student
        print(f"\nclass of {args.class_size} (references and mutants), one batch --jobs {jobs}: "
              f"{sandboxed:.3f} s per submission in the sandbox, {unsandboxed:.3f} s with --no-sandbox "
              f"({sandboxed / unsandboxed:.2f}x), start-up included")
    check_sanity(names, scores, maxima)
    seeded = sys.argv[1:] + ([] if any(a.startswith("--seed") for a in sys.argv) else ["--seed", str(args.seed)])
    print(f"\nrepeat: cd {ROOT} && {shlex.join([sys.executable, 'benchmarks/grading.py', *seeded])}")
    print(f"cores: {os.cpu_count()} (usable: {len(os.sched_getaffinity(0))}); submissions: {len(subs)} "
          f"({args.copies} reference, {args.mutants} mutants, 1 stub"
          + (", 1 hostile infinite loop in keep_max)" if args.hostile else ")"))
    print(f"notes: ours runs --examples {args.examples} per rule (its JSON does not count cases); the nbgrader "
          f"cells run max_examples={args.examples} per @given (one per task, two for state.window). "
          f"--jobs {jobs}. Timeout "
          f"{args.timeout:g} s per task (ours) / per cell (nbgrader): the hostile submission costs one in each "
          f"task or cell that reaches keep_max. Whole run: {time.perf_counter() - started:.1f} s.")


if __name__ == "__main__":
    main()
