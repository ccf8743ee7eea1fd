"""The hostile corpus, graded in one batch as an instructor would (LAB-SPEC §7, isolation and integrity).

Every case of ``tests/hostile/cases.py``, the reference, a known-buggy
submission and a "neighbour" (a second copy of the reference, which one case
tries to sabotage) are graded by ONE run of

    python -m grader <paths...> --json --seed 5 --lab state --timeout 4 --examples 20 --jobs 2 --memory 1024

in a subprocess of its own session. Then:

- the batch finished: exit status 1, and stdout is exactly one JSON document,
  a list of reports in argument order;
- the reference gets 100 and the buggy submission loses exactly its task;
- each hostile case loses exactly its ``loses`` (below full marks, with a
  failing status, the obvious status where the case pins it) and keeps full
  marks everywhere else; no feedback shows a traceback or a grader path;
- nothing keeps running: every process an attack starts carries a per-run
  token (command name, command line or environment; the grader subprocess
  itself gets it in its environment, so every descendant inherits it), and
  /proc holds none of them once the grader has exited. Leftovers are killed
  here, and the test fails;
- the fork bomb was stopped by a process limit and the memory bomb by a
  memory limit (both attacks are bounded, so a missing limit fails the test
  without taking the machine down);
- as root, the grader runs learner code under another uid: writes outside the
  submission (an instructor's file, another submission) fail.

``AGSTATE_HOSTILE_ONLY=name,name`` grades only those cases (plus the
reference, the buggy submission and the neighbour): for debugging one attack.
"""

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pytest

from conftest import ROOT, SOLUTIONS
from hostile.cases import CASES, FLOOD_MARK, PART_A, Hostile, StaleCase, build_submission, case_source
from mutants.state_mutants import MUTANTS
from mutants.state_mutants import build_submission as build_mutant

SEED = 5
TIMEOUT = 4  # seconds per task
EXAMPLES = 20
JOBS = 2
MEMORY_MB = 1024
MIN_CASES = 12
LOST_STATUSES = {"failed", "error", "timeout", "crashed", "not_implemented"}
BUGGY = next(mutant for mutant in MUTANTS if mutant.name == "keep_max_returns_min")
# The fork bomb forks up to 10,000 times; a process limit must stop it long before. A grader's limit
# counts the learner uid's processes and threads, so a few dozen to a few hundred is sensible.
FORK_CEILING = 256
OUTPUT_CAP = 64 * 2**20  # the flood writes 128 MiB; a capped capture never holds that much on disk
STDERR_CAP = 2**20
VICTIM_TEXT = "an instructor's file: no submission may change it\n"
IS_ROOT = os.geteuid() == 0


def selected_cases() -> list[Hostile]:
    only = [name.strip() for name in os.environ.get("AGSTATE_HOSTILE_ONLY", "").split(",") if name.strip()]
    unknown = set(only) - {case.name for case in CASES}
    if unknown:
        raise pytest.UsageError(f"AGSTATE_HOSTILE_ONLY names unknown cases: {sorted(unknown)}")
    return [case for case in CASES if not only or case.name in only]


# -- the corpus itself -----------------------------------------------------------------------
def test_corpus_is_large_and_well_formed():
    assert len(CASES) >= MIN_CASES, f"only {len(CASES)} hostile cases; the corpus needs at least {MIN_CASES}"
    names = [case.name for case in CASES]
    assert len(names) == len(set(names)), "case names must be unique"
    for case in CASES:
        assert isinstance(case.loses, frozenset) and case.loses <= set(PART_A), f"{case.name}: bad loses {case.loses}"
        assert set(case.statuses) <= case.loses and set(case.says) <= case.loses, f"{case.name}: pins a task it does not lose"
        assert case.why.strip() and "\n" not in case.why, f"{case.name}: why must be one line"
        source = case_source(case, {"HOSTILE_TOKEN": "t" * 12, "HOSTILE_DIR": "/tmp/x", "VICTIM_FILE": "/tmp/v",
                                    "VICTIM_DIR": "/tmp", "NEIGHBOUR_STATE": "/tmp/n"})
        compile(source, f"{case.name}/agstate/state.py", "exec")  # an attack, not a syntax error
        if case.where != "import":
            # The attack is the first statement of the function, right after its docstring.
            reference = (SOLUTIONS / "agstate" / "state.py").read_text()
            assert source.count(f"\ndef {case.where}(") == reference.count(f"\ndef {case.where}(") == 1


def test_a_stale_case_fails_loudly():
    with pytest.raises(StaleCase, match="0 times"):
        case_source(Hostile("gone", "no_such_function", "pass\n", frozenset(), "stale"))
    with pytest.raises(StaleCase, match="placeholders"):
        case_source(Hostile("typo", "import", "x = @NO_SUCH_VALUE@\n", frozenset(), "stale"))


# -- one batch, many checks ------------------------------------------------------------------------
@dataclass
class Batch:
    """Everything the checks need, as plain data (shared between pytest-xdist workers as JSON)."""

    names: list[str]  # "reference", "buggy", "neighbour" or a case name, in argument order
    command: list[str]
    returncode: int | None
    timed_out: bool
    elapsed: float
    stdout: str
    stderr: str
    reports: dict[str, dict] = field(default_factory=dict)
    json_problem: str | None = None
    leftovers: list[str] = field(default_factory=list)
    growing_files: list[str] = field(default_factory=list)
    fork_counts: dict[str, int] = field(default_factory=dict)  # forks the fork bomb made, per child
    memory_held: dict[str, int] = field(default_factory=dict)  # MiB the memory bomb held, per child
    largest_capture: int = 0
    victim_intact: bool = True
    planted: bool = False
    neighbour_intact: bool = True

    def report(self, name: str) -> dict:
        if self.json_problem:
            pytest.fail(f"no report for {name}: {self.json_problem}")
        return self.reports[name]


def _grader_options() -> list[str]:
    return ["--jobs", str(JOBS), "--memory", str(MEMORY_MB)]


def _private_dir(prefix: str, mode: int) -> Path:
    # Under /tmp, not pytest's 0700 tmp_path: a grader that drops to another uid must be able to
    # reach these folders, so a failed write is the uid's doing, not a folder's permissions.
    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    path.chmod(mode)
    return path


def marked_processes(token: str) -> dict[int, str]:
    """Live processes (not zombies) whose command name, command line or environment holds ``token``."""
    found = {}
    needle = token.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        base = f"/proc/{name}"
        try:
            with open(f"{base}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
            if state in (b"Z", b"X"):
                continue
            texts = {}
            for part in ("comm", "cmdline", "environ"):
                try:
                    with open(f"{base}/{part}", "rb") as handle:
                        texts[part] = handle.read()
                except OSError:
                    texts[part] = b""
        except (OSError, IndexError):
            continue
        if any(needle in text for text in texts.values()):
            comm = texts["comm"].decode(errors="replace").strip()
            cmdline = texts["cmdline"].replace(b"\0", b" ").decode(errors="replace").strip()[:120]
            found[int(name)] = f"pid {name} ({comm}): {cmdline}"
    return found


def kill_marked(token: str) -> dict[int, str]:
    """SIGKILL every process carrying ``token`` until none is left; what was found."""
    seen = {}
    for _ in range(50):
        found = marked_processes(token)
        if not found:
            break
        seen.update(found)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.1)
    return seen


class _DiskWatch(threading.Thread):
    """The largest size the grader's temporary folder reaches while the batch runs."""

    def __init__(self, folder: Path):
        super().__init__(daemon=True)
        self.folder, self.largest, self.stopping = folder, 0, threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(0.25):
            total = 0
            for dirpath, _, filenames in os.walk(self.folder):
                for filename in filenames:
                    try:
                        total += os.lstat(os.path.join(dirpath, filename)).st_size
                    except OSError:
                        pass
            self.largest = max(self.largest, total)


def _read_count(path: Path) -> int:
    try:
        return int(path.read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def run_batch(cases: list[Hostile]) -> Batch:
    """Build every submission, grade them all in one CLI run, look for leftovers, clean up."""
    token = uuid.uuid4().hex[:12]
    token_dir = _private_dir("agstate-hostile-token-", 0o1777)  # the attacks' own reports; any uid may write
    victim_dir = _private_dir("agstate-hostile-victim-", 0o755)
    grader_tmp = _private_dir("agstate-hostile-tmp-", 0o1777)
    root = _private_dir("agstate-hostile-submissions-", 0o755)
    victim_file = victim_dir / "instructor-notes.txt"
    victim_file.write_text(VICTIM_TEXT)
    victim_file.chmod(0o644)
    try:
        neighbour_path = root / "neighbour" / "agstate" / "state.py"
        values = {"HOSTILE_TOKEN": token, "HOSTILE_DIR": str(token_dir), "VICTIM_FILE": str(victim_file),
                  "VICTIM_DIR": str(victim_dir), "NEIGHBOUR_STATE": str(neighbour_path)}
        paths = {"reference": root / "reference", "buggy": root / "buggy", "neighbour": root / "neighbour"}
        for name in ("reference", "neighbour"):
            shutil.copytree(SOLUTIONS / "agstate", paths[name] / "agstate", ignore=shutil.ignore_patterns("__pycache__"))
        build_mutant(BUGGY, paths["buggy"])
        names = ["reference", "buggy"]
        for case in cases:
            paths[case.name] = build_submission(case, root / case.name, values)
            names.append(case.name)
            if case.name == "write_outside_its_folder":
                names.append("neighbour")  # graded after its attacker
        if "neighbour" not in names:
            names.append("neighbour")
        for path in root.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        neighbour_state = neighbour_path.read_text()

        command = [sys.executable, "-m", "grader", *(str(paths[name]) for name in names), "--json", "--seed", str(SEED),
                   "--lab", "state", "--timeout", str(TIMEOUT), "--examples", str(EXAMPLES), *_grader_options()]
        # Worst case: every task of every submission runs out of time; a working grader is far faster.
        overall = len(names) * len(PART_A) * TIMEOUT + 120
        env = {**os.environ, "AGSTATE_HOSTILE_TOKEN": token, "TMPDIR": str(grader_tmp), "PYTHONDONTWRITEBYTECODE": "1"}
        for variable in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_CURRENT_TEST"):
            env.pop(variable, None)
        out_path, err_path = token_dir.parent / f"{token_dir.name}.stdout", token_dir.parent / f"{token_dir.name}.stderr"
        watch = _DiskWatch(grader_tmp)
        watch.start()
        started = time.monotonic()
        timed_out = False
        # Files, not pipes: a leftover process holding the grader's stdout must not hang this test.
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=ROOT, env=env,
                                       start_new_session=True)  # an attack on the grader's process group stays there
            try:
                process.wait(timeout=overall)
            except subprocess.TimeoutExpired:
                timed_out = True
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait()
        elapsed = time.monotonic() - started
        watch.stopping.set()
        watch.join()
        stdout = out_path.read_bytes().decode(errors="replace")
        stderr = err_path.read_bytes().decode(errors="replace")
        out_path.unlink()
        err_path.unlink()

        result = Batch(names, command, process.returncode, timed_out, round(elapsed, 1), stdout, stderr,
                       largest_capture=watch.largest)
        try:
            document = json.loads(stdout)
            if not isinstance(document, list) or len(document) != len(names):
                raise ValueError(f"expected a list of {len(names)} reports, got {type(document).__name__}"
                                 f"{f' of {len(document)}' if isinstance(document, list) else ''}")
            for name, report in zip(names, document):
                if report.get("submission") != str(paths[name]):
                    raise ValueError(f"report {report.get('submission')!r} where {paths[name]} was expected: not in argument order")
                result.reports[name] = report
        except ValueError as exc:
            result.reports = {}
            result.json_problem = (f"stdout is not one JSON list of reports ({exc}); exit status {process.returncode}"
                                   f"{', killed after the overall timeout' if timed_out else ''}; "
                                   f"stdout starts {stdout[:300]!r}; stderr ends {stderr[-1500:]!r}")

        # What is still running once the grader has exited: look twice, a second apart.
        first = marked_processes(token)
        sizes = {path.name: path.stat().st_size for path in token_dir.glob("writer-*.log")}
        time.sleep(1.0)
        second = marked_processes(token)
        result.growing_files = sorted(path.name for path in token_dir.glob("writer-*.log")
                                      if path.stat().st_size > sizes.get(path.name, 0))
        result.leftovers = [text for _, text in sorted({**first, **second}.items())]
        still = kill_marked(token)
        if still and not result.leftovers:
            result.leftovers = list(still.values())
        result.fork_counts = {path.name: _read_count(path) for path in token_dir.glob("forks-*.count")}
        result.memory_held = {path.name: _read_count(path) for path in token_dir.glob("memory-*.held")}
        result.victim_intact = victim_file.read_text() == VICTIM_TEXT
        result.planted = (victim_dir / "planted.txt").exists()
        result.neighbour_intact = neighbour_path.read_text() == neighbour_state
        return result
    finally:
        kill_marked(token)  # whatever happened above, nothing of this run stays behind
        for folder in (token_dir, victim_dir, grader_tmp, root):
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """The one batch: run here, or, under pytest-xdist, by whichever worker asks first (the others wait)."""
    cases = selected_cases()
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return run_batch(cases)
    shared = tmp_path_factory.getbasetemp().parent  # the same folder for every worker of this run
    key = "-".join(sorted(case.name for case in cases)) if len(cases) < len(CASES) else "all"
    data = shared / f"hostile-batch-{zlib.crc32(key.encode()):08x}.json"
    with open(shared / "hostile-batch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not data.exists():
            data.write_text(json.dumps(asdict(run_batch(cases))))
    return Batch(**json.loads(data.read_text()))


def _excerpt(report: dict) -> str:
    return "\n".join(f"  {t['id']}: {t['status']} {t['score']}/{t['max_score']} {t.get('feedback', '')[:300]!r}"
                     for t in report["tasks"])


def _check_feedback(name: str, report: dict) -> None:
    for task in report["tasks"]:
        feedback = task.get("feedback") or ""
        for internal in ("Traceback", "grader/"):
            assert internal not in feedback, f"{name} {task['id']}: feedback shows grader internals ({internal}):\n{_excerpt(report)}"


def _expect_losses(name: str, report: dict, loses: frozenset, statuses: dict = {}, says: dict = {}) -> None:
    context = f"{name}:\n{_excerpt(report)}"
    tasks = {task["id"]: task for task in report["tasks"]}
    assert list(tasks) == list(PART_A), context
    for task_id, task in tasks.items():
        if task_id in loses:
            assert task["score"] < task["max_score"], f"{task_id} should be lost but got full marks; " + context
            assert task["status"] in LOST_STATUSES, f"{task_id} has status {task['status']!r}; " + context
            wanted = statuses.get(task_id)
            if wanted is not None:
                allowed = {wanted} if isinstance(wanted, str) else set(wanted)
                assert task["status"] in allowed, f"{task_id} should be {' or '.join(sorted(allowed))}, not {task['status']}; " + context
            if task_id in says:
                assert says[task_id] in (task.get("feedback") or ""), f"{task_id} feedback should mention {says[task_id]!r}; " + context
        else:
            assert task["status"] == "passed" and task["score"] == task["max_score"], \
                f"{task_id} is not attacked by {name} but did not get full marks; " + context
    _check_feedback(name, report)


def test_the_batch_finishes_with_one_clean_json_document(batch):
    assert not batch.timed_out, (f"the batch did not finish in {batch.elapsed:.0f} s and was killed; "
                                 f"stderr ends {batch.stderr[-1500:]!r}")
    assert batch.json_problem is None, batch.json_problem
    assert batch.returncode == 1, f"exit status {batch.returncode}; stderr ends {batch.stderr[-1500:]!r}"
    # (A crashed task's feedback may quote the learner's last output inside a JSON string; the
    # flood's submission crashes nothing, so its text has no business in stdout at all.)
    assert FLOOD_MARK not in batch.stdout, "the learner's flood of output reached the grader's stdout"


def test_learner_output_is_captured_and_capped(batch):
    assert len(batch.stderr.encode()) < STDERR_CAP, f"the grader's stderr holds {len(batch.stderr.encode()):,} bytes"
    assert FLOOD_MARK not in batch.stderr, "the learner's flood of output reached the grader's stderr"
    assert batch.largest_capture < OUTPUT_CAP, \
        f"the grader's temporary folder reached {batch.largest_capture:,} bytes: learner output is stored uncapped"


def test_the_reference_gets_full_marks(batch):
    report = batch.report("reference")
    _expect_losses("reference", report, frozenset())
    assert report["score"] == report["max_score"] == 100.0


def test_a_buggy_submission_loses_exactly_its_task(batch):
    _expect_losses(f"buggy ({BUGGY.name})", batch.report("buggy"), BUGGY.breaks)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_hostile_case_loses_exactly_what_it_attacks(batch, case):
    if case.name not in batch.names:
        pytest.skip("not selected by AGSTATE_HOSTILE_ONLY")
    _expect_losses(f"{case.name} ({case.why})", batch.report(case.name), case.loses, case.statuses, case.says)


def test_nothing_keeps_running_afterwards(batch):
    assert not batch.leftovers, (f"{len(batch.leftovers)} process(es) of the batch still ran after the grader exited "
                                 "(killed now):\n  " + "\n  ".join(batch.leftovers[:40]))
    assert not batch.growing_files, f"detached writers were still writing after the grader exited: {batch.growing_files}"


def test_the_fork_bomb_is_stopped_by_a_process_limit(batch):
    if "fork_bomb" not in batch.names:
        pytest.skip("not selected by AGSTATE_HOSTILE_ONLY")
    worst = max(batch.fork_counts.values(), default=0)
    assert worst < FORK_CEILING, (f"the fork bomb forked {worst:,} processes in one child before anything stopped it "
                                  f"(counts {batch.fork_counts}); a process limit must stop it below {FORK_CEILING}")


def test_the_memory_bomb_is_stopped_by_a_memory_limit(batch):
    if "memory_bomb" not in batch.names:
        pytest.skip("not selected by AGSTATE_HOSTILE_ONLY")
    worst = max(batch.memory_held.values(), default=0)
    assert worst < MEMORY_MB, (f"the memory bomb held {worst:,} MiB in one child ({batch.memory_held}); "
                               f"a memory limit of {MEMORY_MB} MiB must stop it first")


@pytest.mark.skipif(not IS_ROOT, reason="the grader drops to an unprivileged uid only when it runs as root")
def test_learner_code_cannot_write_outside_its_submission(batch):
    if "write_outside_its_folder" not in batch.names:
        pytest.skip("not selected by AGSTATE_HOSTILE_ONLY")
    assert batch.victim_intact, "a submission overwrote an instructor's file outside its folder"
    assert not batch.planted, "a submission created a file in an instructor's folder"
    assert batch.neighbour_intact, "a submission rewrote another submission's state.py"
    _expect_losses("neighbour (graded after write_outside_its_folder)", batch.report("neighbour"), frozenset())
