"""The hostile corpus, graded in one batch as an instructor would (docs/explanation/sandbox.md).

Every case of ``tests/hostile/cases.py``, the reference, a known-buggy
submission and a "neighbour" (a second copy of the reference, which cases
try to read and to sabotage) are graded by ONE run of

    python -m grader <paths...> --json --out <gradebook> --seed 5 --part state --timeout 4 --examples 20 --jobs 2

in a process session of its own, once as the test's own user (root in CI:
one uid per task, and a cgroup per task where the machine has them) and, as
root, once more as an ordinary user from that user's own private checkout
(the learner's code then runs as the grader's own uid, without cgroups:
only the sandbox stands between it and the grader's files). Then, for each:

- the batch finished: exit status 1, and stdout is exactly one strict JSON
  document (no NaN), a list of reports in argument order, each small;
- the reference gets 100 and the buggy submission loses exactly its task;
- each hostile case loses exactly its ``loses`` and keeps full marks
  everywhere else; no feedback shows a traceback or a grader path, what a
  case must never see (``LEAK_MARK``, the neighbour's file) or a surrogate;
- nothing keeps running, and nothing is left: no process carries the run's
  token or the batch's label, no file or SysV segment of an attack is on the
  machine, no .pth was planted in an environment, nobody phoned home;
- the fork bomb was stopped by a process limit, the memory bomb by a memory
  limit, and (with cgroups) ten processes by a limit on the whole tree;
- files outside the submission (an instructor's file, the neighbour's
  module, the gradebook) are as the grader left them, and the log reads back
  (``--resume``) to the same reports.

``AGSTATE_HOSTILE_ONLY=name,name`` grades only those cases (plus the
reference, the buggy submission and the neighbour): for debugging one attack.
"""

import fcntl
import json
import os
import re
import shutil
import signal
import socket
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
from hostile.cases import CASES, FLOOD_MARK, LEAK_MARK, PART_A, Hostile, StaleCase, build_submission, case_source
from mutants.state_mutants import OVERWRITE, SCHEMAS
from support import submissions
from support.corpus import Corpus
from support.paths import ROOT, SOLUTIONS
from support.private_clone import ORDINARY_USER, as_account, private_clone

from grader.reports.gradebook import unlogged
from grader.reports.report import without_seconds
from grader.reports.safe import display_path
from grader.sandbox.reach import INTEGRITY

pytestmark = pytest.mark.corpus

SEED = 5
# Seconds per task, and so for the import (the grader gives an import min(timeout, 10) s): 8, not less, because the
# memory cases write up to 1.3 GB at import, which takes seconds when the suite keeps both cores busy.
TIMEOUT = 8
EXAMPLES = 20
JOBS = 2
MEMORY_MB = 1024
MIN_CASES = 30
LOST_STATUSES = {"failed", "error", "timeout", "crashed", "not_implemented"}
STATE = Corpus("state")
BUGGY = STATE.mutant("keep_max_returns_min")
# The fork bomb forks up to 10,000 times; a process limit must stop it long before. A grader's limit
# counts the learner uid's processes and threads, so a few dozen to a few hundred is sensible.
FORK_CEILING = 256
OUTPUT_CAP = 64 * 2**20  # the flood writes 128 MiB; a capped capture never holds that much on disk
STDERR_CAP = 2**20
REPORT_CAP = 2**20  # one report's JSON: a 40 MB reply must not make a 40 MB report
VICTIM_TEXT = "an instructor's file: no submission may change it\n"
SHM_KEY = 0x6A9E  # leave_shared_memory's SysV key
IS_ROOT = os.geteuid() == 0
ACCOUNTS = ["grader", "ordinary user"] if IS_ROOT else ["grader"]


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
                                    "VICTIM_DIR": "/tmp", "NEIGHBOUR_STATE": "/tmp/n", "LISTEN_PORT": "1"})
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

    account: str
    names: list[str]  # "reference", "buggy", "neighbour" or a case name, in argument order
    paths: dict[str, str]
    command: list[str]
    returncode: int | None
    timed_out: bool
    elapsed: float
    stdout: str
    stderr: str
    reports: dict[str, dict] = field(default_factory=dict)
    json_problem: str | None = None
    leftovers: list[str] = field(default_factory=list)
    largest_capture: int = 0
    victim_intact: bool = True
    planted: bool = False
    neighbour_intact: bool = True
    log_lines: list[str] = field(default_factory=list)
    gradebook: str = ""
    resumed_stdout: str = ""
    host_leftovers: list[str] = field(default_factory=list)
    planted_pth: list[str] = field(default_factory=list)
    phoned_home: list[str] = field(default_factory=list)
    cgroups: bool = False

    def report(self, name: str) -> dict:
        if self.json_problem:
            pytest.fail(f"no report for {name} ({self.account}): {self.json_problem}")
        return self.reports[name]

    def feedback(self, name: str, task_id: str) -> str:
        task = next(t for t in self.report(name)["tasks"] if t["id"] == task_id)
        return " ".join([task.get("feedback") or ""] + [rule.get("feedback") or "" for rule in task.get("rules", [])])


def _private_dir(prefix: str, mode: int, owner: tuple[int, int] | None = None) -> Path:
    # Under /tmp, not pytest's 0700 tmp_path: the grader may run as another account.
    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    path.chmod(mode)
    if owner:
        os.chown(path, *owner)
    return path


def marked_processes(tokens: list[str]) -> dict[int, str]:
    """Live processes (not zombies) whose command name, command line or environment holds one of ``tokens``."""
    found = {}
    needles = [token.encode() for token in tokens]
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
        if any(needle in text for needle in needles for text in texts.values()):
            comm = texts["comm"].decode(errors="replace").strip()
            cmdline = texts["cmdline"].replace(b"\0", b" ").decode(errors="replace").strip()[:120]
            found[int(name)] = f"pid {name} ({comm}): {cmdline}"
    return found


def kill_marked(tokens: list[str]) -> dict[int, str]:
    """SIGKILL every process carrying one of ``tokens`` until none is left; what was found."""
    seen = {}
    for _ in range(50):
        found = marked_processes(tokens)
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


class _Listener(threading.Thread):
    """A TCP port on 127.0.0.1 and an abstract unix socket that no sandboxed code should reach."""

    def __init__(self, token: str):
        super().__init__(daemon=True)
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.name = f"agstate-hostile-{token}"
        self.unix.bind("\0" + self.name)
        self.unix.listen()
        self.port = self.tcp.getsockname()[1]
        self.accepted: list[str] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        import select

        while not self.stopping.is_set():
            for server in select.select([self.tcp, self.unix], [], [], 0.2)[0]:
                connection, _ = server.accept()
                self.accepted.append("tcp" if server is self.tcp else "abstract unix socket")
                connection.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join()
        self.tcp.close()
        self.unix.close()


def _host_leftovers(token: str, folders: list[Path]) -> list[str]:
    found = [str(path) for folder in folders for path in folder.glob(f"agh-*{token}*")]
    try:
        for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:]:
            if int(line.split()[0]) == SHM_KEY:
                found.append(f"SysV shared memory key {SHM_KEY:#x}")
    except OSError:
        pass
    return found


def _planted(token: str, roots: list[Path]) -> list[str]:
    name = f"agstate_hostile_{token}.pth"
    found = []
    for root in roots:
        for dirpath, _, filenames in os.walk(root):
            if name in filenames:
                found.append(os.path.join(dirpath, name))
                os.unlink(os.path.join(dirpath, name))
    return found


def run_batch(cases: list[Hostile], account: str) -> Batch:
    """Build every submission, grade them all in one CLI run as ``account``, look for leftovers, clean up."""
    clone = private_clone(ORDINARY_USER if account == "ordinary user" else None)
    owner = (clone.uid, clone.gid)
    token = uuid.uuid4().hex[:12]
    token_dir = _private_dir("agstate-hostile-token-", 0o1777)
    victim_dir = _private_dir("agstate-hostile-victim-", 0o755, owner)
    grader_tmp = _private_dir("agstate-hostile-tmp-", 0o1777)
    root = _private_dir("agstate-hostile-submissions-", 0o755)
    victim_file = victim_dir / "instructor-notes.txt"
    victim_file.write_text(VICTIM_TEXT)
    gradebook = victim_dir / "grades.csv"
    listener = _Listener(token)
    listener.start()
    labels = [token]
    try:
        neighbour_path = root / "neighbour" / "agstate" / "state.py"
        classmate_mark = f"CLASSMATE-{token}-SECRET"
        values = {"HOSTILE_TOKEN": token, "HOSTILE_DIR": str(token_dir), "VICTIM_FILE": str(victim_file),
                  "VICTIM_DIR": str(victim_dir), "NEIGHBOUR_STATE": str(neighbour_path), "GRADEBOOK": str(gradebook),
                  "REFERENCE_FILE": str(SOLUTIONS / "agstate" / "state.py"), "SUBMISSIONS_ROOT": str(root),
                  "SUBMISSIONS_ROOT_REVERSED": str(root)[::-1], "CLASSMATE_MARK_REVERSED": classmate_mark[::-1],
                  "LISTEN_PORT": str(listener.port), "ABSTRACT_SOCKET": listener.name}
        paths = {"reference": root / "reference", "buggy": root / "buggy", "neighbour": root / "neighbour"}
        for name in ("reference", "neighbour"):
            submissions.build_submission(paths[name])
        neighbour_path.write_text(neighbour_path.read_text() + f"\n# {classmate_mark}\n")
        STATE.build_submission(BUGGY, paths["buggy"])
        names = ["reference", "buggy"]
        for case in cases:
            paths[case.name] = build_submission(case, root / case.name, values)
            names.append(case.name)
            if case.name == "write_outside_its_folder":
                names.append("neighbour")  # graded after its attacker
        if "neighbour" not in names:
            names.append("neighbour")
        # Everything belongs to the account that grades: only the sandbox stops a write.
        subprocess.run(["chown", "-R", f"{owner[0]}:{owner[1]}", str(root), str(victim_dir)], check=True)
        for path in [root, *root.rglob("*")]:
            if not path.is_symlink() and not path.is_fifo():
                path.chmod(0o755 if path.is_dir() else 0o644)
        victim_file.chmod(0o666)
        neighbour_path.chmod(0o666)
        neighbour_state = neighbour_path.read_text()

        grader = [str(clone.python), "-m", "grader", *(str(paths[name]) for name in names), "--json", "--out", str(gradebook),
                  "--seed", str(SEED), "--part", "state", "--timeout", str(TIMEOUT), "--examples", str(EXAMPLES),
                  "--jobs", str(JOBS), "--memory", str(MEMORY_MB)]
        command = as_account(clone, grader)
        # Worst case: every task of every submission runs out of time; a working grader is far faster.
        overall = len(names) * len(PART_A) * TIMEOUT + 120
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": clone.home, "LANG": "C.UTF-8",
               "AGSTATE_HOSTILE_TOKEN": token, "TMPDIR": str(grader_tmp), "PYTHONDONTWRITEBYTECODE": "1",
               # The attacks import os, ctypes, gc ...: the reading of their source (grader.sandbox.reach) would stop
               # each before it runs, the learner process's hook (grader.child.guard) some of them: these cases
               # prove the sandbox holds on its own (tests/test_reach.py proves the other two).
               INTEGRITY: "off"}
        out_path, err_path = token_dir.parent / f"{token_dir.name}.stdout", token_dir.parent / f"{token_dir.name}.stderr"
        watch = _DiskWatch(grader_tmp)
        watch.start()
        started = time.monotonic()
        timed_out = False
        # Files, not pipes: a leftover process holding the grader's stdout must not hang this test.
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=clone.lab, env=env,
                                       start_new_session=True)  # an attack on the grader's process group stays there
            labels.append(f"agstate-batch-{process.pid}")  # what the zygote and every learner process carry
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

        result = Batch(account, names, {name: display_path(str(path)) for name, path in paths.items()}, command,
                       process.returncode, timed_out, round(elapsed, 1), stdout, stderr, largest_capture=watch.largest)
        try:
            document = json.loads(stdout, parse_constant=lambda constant: (_ for _ in ()).throw(ValueError(constant)))
            if not isinstance(document, list) or len(document) != len(names):
                raise ValueError(f"expected a list of {len(names)} reports, got {type(document).__name__}"
                                 f"{f' of {len(document)}' if isinstance(document, list) else ''}")
            for name, report in zip(names, document):
                if report.get("submission") != result.paths[name]:
                    raise ValueError(f"report {report.get('submission')!r} where {result.paths[name]} was expected: "
                                     "not in argument order")
                result.reports[name] = report
        except ValueError as exc:
            result.reports = {}
            result.json_problem = (f"stdout is not one strict JSON list of reports ({exc}); exit status {process.returncode}"
                                   f"{', killed after the overall timeout' if timed_out else ''}; "
                                   f"stdout starts {stdout[:300]!r}; stderr ends {stderr[-1500:]!r}")

        # What is still running once the grader has exited: look twice, a second apart.
        first = marked_processes(labels)
        time.sleep(1.0)
        second = marked_processes(labels)
        result.leftovers = [text for _, text in sorted({**first, **second}.items())]
        still = kill_marked(labels)
        if still and not result.leftovers:
            result.leftovers = list(still.values())
        result.victim_intact = victim_file.read_text() == VICTIM_TEXT
        result.planted = (victim_dir / "planted.txt").exists()
        result.neighbour_intact = neighbour_path.read_text() == neighbour_state
        log = gradebook.with_suffix(".jsonl")
        result.log_lines = log.read_bytes().decode().split("\n") if log.exists() else []
        result.gradebook = gradebook.read_text() if gradebook.exists() else ""
        resumed = subprocess.run(command + ["--resume"], capture_output=True, cwd=clone.lab, env=env, timeout=300)
        result.resumed_stdout = resumed.stdout.decode(errors="replace")
        result.host_leftovers = _host_leftovers(token, [Path("/dev/shm"), Path("/tmp"), grader_tmp])
        result.planted_pth = _planted(token, [Path(sys.prefix), Path(sys.base_prefix), clone.python.parent.parent,
                                              clone.lab / "grader", ROOT / "grader"])
        result.phoned_home = list(listener.accepted)
        from grader.sandbox import cgroups

        result.cgroups = account == "grader" and not isinstance(cgroups.detect(), str)
        return result
    finally:
        listener.stop()
        kill_marked(labels)  # whatever happened above, nothing of this run stays behind
        for folder in (token_dir, victim_dir, grader_tmp, root):
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module", params=ACCOUNTS)
def batch(request, tmp_path_factory):
    """One batch per account: run here, or, under pytest-xdist, by whichever worker asks first (the others wait)."""
    cases = selected_cases()
    account = request.param
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return run_batch(cases, account)
    shared = tmp_path_factory.getbasetemp().parent  # the same folder for every worker of this run
    key = "-".join(sorted(case.name for case in cases)) if len(cases) < len(CASES) else "all"
    data = shared / f"hostile-batch-{account.replace(' ', '-')}-{zlib.crc32(key.encode()):08x}.json"
    with open(shared / f"hostile-batch-{account.replace(' ', '-')}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not data.exists():
            data.write_text(json.dumps(asdict(run_batch(cases, account))))
    return Batch(**json.loads(data.read_text()))


def _excerpt(report: dict) -> str:
    return "\n".join(f"  {t['id']}: {t['status']} {t['score']}/{t['max_score']} {t.get('feedback', '')[:300]!r}"
                     for t in report["tasks"])


def _check_feedback(name: str, report: dict) -> None:
    for task in report["tasks"]:
        feedback = task.get("feedback") or ""
        for internal in ("Traceback", "grader/"):
            assert internal not in feedback, f"{name} {task['id']}: feedback shows grader internals ({internal}):\n{_excerpt(report)}"


def _expect_losses(name: str, report: dict, loses: frozenset, statuses: dict | None = None, says: dict | None = None) -> None:
    statuses, says = statuses or {}, says or {}
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


def _selected(batch: Batch, name: str) -> None:
    if name not in batch.names:
        pytest.skip("not selected by AGSTATE_HOSTILE_ONLY")


def _measure(batch: Batch, case: str, task_id: str, pattern: str) -> int | None:
    """A number an attack reported about itself in its feedback (``HOSTILE-... N``), or None."""
    found = re.search(pattern, batch.feedback(case, task_id))
    return int(found.group(1)) if found else None


def test_the_batch_finishes_with_one_clean_json_document(batch):
    assert not batch.timed_out, (f"the batch did not finish in {batch.elapsed:.0f} s and was killed; "
                                 f"stderr ends {batch.stderr[-1500:]!r}")
    assert batch.json_problem is None, batch.json_problem
    assert batch.returncode == 1, f"exit status {batch.returncode}; stderr ends {batch.stderr[-1500:]!r}"
    # (A crashed task's feedback may quote the learner's last output inside a JSON string; the
    # flood's submission crashes nothing, so its text has no business in stdout at all.)
    assert FLOOD_MARK not in batch.stdout, "the learner's flood of output reached the grader's stdout"
    for name, report in batch.reports.items():
        size = len(json.dumps(report))
        assert size < REPORT_CAP, f"{name}'s report is {size:,} bytes of JSON: learner data must be capped"
        assert report["sandbox"] == "bubblewrap", f"{name} was not graded in a sandbox"


def test_learner_output_is_captured_and_capped(batch):
    assert len(batch.stderr.encode()) < STDERR_CAP, f"the grader's stderr holds {len(batch.stderr.encode()):,} bytes"
    assert FLOOD_MARK not in batch.stderr, "the learner's flood of output reached the grader's stderr"
    assert batch.largest_capture < OUTPUT_CAP, \
        f"the grader's temporary folder reached {batch.largest_capture:,} bytes: learner output or files are stored uncapped"


def test_the_reference_gets_full_marks(batch):
    report = batch.report("reference")
    _expect_losses("reference", report, frozenset())
    assert report["score"] == report["max_score"] == 100.0


def test_a_buggy_submission_loses_exactly_its_task(batch):
    _expect_losses(f"buggy ({BUGGY.name})", batch.report("buggy"), BUGGY.breaks)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_hostile_case_loses_exactly_what_it_attacks(batch, case):
    _selected(batch, case.name)
    _expect_losses(f"{case.name} ({case.why})", batch.report(case.name), case.loses, case.statuses, case.says)


def test_no_submission_sees_what_it_must_not(batch):
    for name, report in batch.reports.items():
        text = json.dumps(report, ensure_ascii=False)
        assert LEAK_MARK not in text, f"{name}: an attack found what it must never see:\n{_excerpt(report)}"
        assert "CLASSMATE-" not in text, f"{name}: the neighbour's file reached a report"


def test_nothing_keeps_running_afterwards(batch):
    assert not batch.leftovers, (f"{len(batch.leftovers)} process(es) of the batch still ran after the grader exited "
                                 "(killed now):\n  " + "\n  ".join(batch.leftovers[:40]))


def test_nothing_a_task_made_is_left_on_the_machine(batch):
    assert not batch.host_leftovers, f"files or shared memory of an attack outlived the batch: {batch.host_leftovers}"
    assert not batch.planted_pth, f"a submission planted a .pth file in an environment: {batch.planted_pth}"
    assert not batch.phoned_home, f"a submission reached the machine's network: {batch.phoned_home}"


def test_the_fork_bomb_is_stopped_by_a_process_limit(batch):
    _selected(batch, "fork_bomb")
    forked = _measure(batch, "fork_bomb", SCHEMAS, r"HOSTILE-FORKED (\d+)")
    assert forked is not None, f"the fork bomb did not report how far it got: {batch.feedback('fork_bomb', SCHEMAS)!r}"
    assert forked < FORK_CEILING, f"the fork bomb forked {forked:,} processes before anything stopped it"


def test_the_memory_bomb_is_stopped_by_a_memory_limit(batch):
    _selected(batch, "memory_bomb")
    held = _measure(batch, "memory_bomb", OVERWRITE, r"HOSTILE-HELD (\d+) MiB")
    feedback = batch.feedback("memory_bomb", OVERWRITE)
    assert held is not None or "memory limit" in feedback, feedback
    assert held is None or held < MEMORY_MB, f"the memory bomb held {held:,} MiB; a limit of {MEMORY_MB} MiB must stop it"


def test_a_process_tree_is_limited_as_a_whole_where_cgroups_exist(batch):
    _selected(batch, "memory_across_processes")
    held = _measure(batch, "memory_across_processes", OVERWRITE, r"HOSTILE-TREE-HELD (\d+) MiB")
    feedback = batch.feedback("memory_across_processes", OVERWRITE)
    if batch.cgroups:
        assert held is not None or "memory limit" in feedback, feedback
        # At most the limit's worth: 8 children of 128 MiB fill 1,024 MiB exactly, and whether the 8th fits depends on
        # what else is charged to the cgroup then (the learner's pages from before it joined are the zygote's), so 8
        # may hold; without a limit on the tree all 10 hold 1,280 MiB.
        assert held is None or held <= MEMORY_MB, (f"10 processes held {held:,} MiB together: the task's cgroup must "
                                                   f"keep the whole tree within {MEMORY_MB} MiB")
        assert "memory limit" in feedback, f"the feedback should say the memory limit was reached: {feedback}"
    else:
        # Without cgroups only the per-process limits hold (docs/explanation/sandbox.md): none of the 10 is stopped (on a busy machine
        # some may still be writing their pages when the case looks: they were not stopped either).
        found = re.search(r"HOSTILE-TREE-HELD \d+ MiB in \d+ processes; (\d+) stopped, \d+ still writing, of (\d+)", feedback)
        assert found, f"the case did not report: {feedback}"
        assert found.groups() == ("0", "10"), f"without cgroups each process has its own limit, so none is stopped: {feedback}"


def test_learner_code_cannot_write_outside_its_submission(batch):
    _selected(batch, "write_outside_its_folder")
    assert batch.victim_intact, "a submission overwrote an instructor's file outside its folder"
    assert not batch.planted, "a submission created a file in an instructor's folder"
    assert batch.neighbour_intact, "a submission rewrote another submission's state.py"
    _expect_losses("neighbour (graded after write_outside_its_folder)", batch.report("neighbour"), frozenset())


def test_the_gradebook_holds_what_the_grader_wrote_and_reads_back_the_same(batch):
    assert batch.json_problem is None, batch.json_problem
    lines = [line for line in batch.log_lines if line]
    assert batch.log_lines[-1] == "" and len(lines) == len(batch.names), \
        f"the log holds {len(lines)} records for {len(batch.names)} submissions"
    assert "forged" not in batch.gradebook and all("forged" not in line for line in lines), "a submission forged a grade"
    logged = {json.loads(line)["submission"]: json.loads(line) for line in lines}
    # The log keeps each task's wall seconds (--out), which a printed report leaves out: it repeats with the seed.
    assert all("seconds" in task for report in logged.values() for task in report["tasks"])
    # It also says when and by which grader each record was written ("logged"), which no printed report holds.
    assert all(set(report["logged"]) == {"at", "by"} for report in logged.values())
    assert {path: without_seconds(unlogged(report)) for path, report in logged.items()} == \
        {report["submission"]: report for report in batch.reports.values()}
    for line in lines:
        assert "\u2028" not in line and "\u2029" not in line, "a log record holds a raw line separator"
    assert json.loads(batch.resumed_stdout) == [batch.reports[name] for name in batch.names], \
        "--resume did not read the log back to the same reports"
    rows = batch.gradebook.strip().split("\n")
    assert len(rows) == len(batch.names) + 1 and {row.rsplit(",", 1)[1] for row in rows[1:]} == {"100.0"}


def test_a_folder_name_that_is_not_utf8_is_graded_and_shown(batch):
    _selected(batch, "non_utf8_folder_name")
    report = batch.report("non_utf8_folder_name")
    assert "\\xff\\xfe-latin1-\\xe9" in report["submission"], report["submission"]
