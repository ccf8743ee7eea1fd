"""The sandbox as the learner's code sees it, and what is left of it afterwards (docs/explanation/sandbox.md).

A submission whose module defines ``facts()`` — what its process can see and
do — is run through a real ``Session``; the tests read the answer as plain
data, so every claim of ``grader/sandbox/bubblewrap.py`` is checked from inside.
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from support.cli import run_cli
from support.paths import REFERENCE, ROOT, SOLUTIONS
from support.submissions import build_submission

from grader.sandbox import bubblewrap, cgroups, zygote
from grader.sandbox.limits import Limits
from grader.sandbox.reach import INTEGRITY
from grader.sandbox.session import Session
from grader.sandbox.staging import staged

pytestmark = pytest.mark.part

IS_ROOT = os.geteuid() == 0

FACTS = textwrap.dedent('''
    import ctypes, gc, os, socket, sys


    def facts():
        libc = ctypes.CDLL(None, use_errno=True)
        status = dict(line.rstrip("\\n").split(":\\t", 1) for line in open("/proc/self/status") if ":\\t" in line)

        def readable(path):  # a folder's listing, or whether a file opens; None when nothing is there
            try:
                if os.path.isdir(path):
                    return sorted(os.listdir(path))
                open(path, "rb").close()
                return True
            except OSError:
                return None

        def writable(folder):
            try:
                with open(os.path.join(folder, "probe"), "w") as handle:
                    handle.write("x")
                os.unlink(os.path.join(folder, "probe"))
                return True
            except OSError:
                return False

        tmp = os.statvfs("/tmp")
        return {
            "uid": os.getuid(), "cwd": os.getcwd(), "hostname": socket.gethostname(),
            "cap_eff": int(status["CapEff"], 16), "no_new_privs": status.get("NoNewPrivs", "").strip(),
            "root": sorted(os.listdir("/")), "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
            "nested_userns": libc.unshare(0x10000000), "interfaces": sorted(name for _, name in socket.if_nameindex()),
            "tmp_bytes": tmp.f_blocks * tmp.f_frsize, "writable": [f for f in ("/", "/usr", sys.prefix, os.path.join(sys.prefix, "lib"),
                                                                           "/submission", "/tmp", "/dev/shm") if writable(f)],
            "readable": {path: readable(path) for path in @PATHS@},
            "grading_modules": sorted(m for m in sys.modules if m.startswith(("grader.engine", "hypothesis")) or
                                      m.split(".")[3:4] in (["rules"], ["checks"], ["model"], ["strategies"])),
            "reports": sum(1 for o in gc.get_objects() if isinstance(o, dict) and {"score", "max_score"} <= o.keys()),
            "environ": sorted(os.environ),
        }
''')


@pytest.fixture
def facts(tmp_path, monkeypatch):
    """The ``facts()`` of a learner process in the sandbox a task gets, the sandbox alone.

    The learner process's hook (``grader.child.guard``) would refuse ``gc``, ``ctypes`` and parts of ``/proc``
    that these facts read: what is measured here is what the sandbox itself allows."""
    monkeypatch.setenv(INTEGRITY, "off")
    secrets = [str(ROOT), str(SOLUTIONS / "agstate" / "state.py"), str(tmp_path), "/root", "/home", "/etc/passwd",
               str(Path(sys.prefix) / "lib"), "/var"]
    # A checkout or a course placed under /usr (a container's WORKDIR /usr/src/app): out of sight like any other.
    under_usr = Path(tempfile.mkdtemp(prefix="agstate-secret-", dir="/usr/src")) if os.access("/usr/src", os.W_OK) else None
    if under_usr is not None:
        (under_usr / "solutions.py").write_text("ANSWERS = 42\n")
        under_usr.chmod(0o755)
        secrets += [str(under_usr), str(under_usr / "solutions.py")]
    submission = tmp_path / "submission"
    build_submission(submission, modules={"state.py": (REFERENCE / "state.py").read_text() + FACTS.replace("@PATHS@", repr(secrets))})
    try:
        with staged(submission) as (copy, _):
            with Session(copy, "state", Limits(cpu_seconds=30)) as session:
                answer = session.probe("call", "facts", [], timeout=30)
    finally:
        if under_usr is not None:
            shutil.rmtree(under_usr, ignore_errors=True)
    return answer["result"], secrets


def test_the_learner_sees_only_the_runtime_its_submission_and_a_capped_tmp(facts):
    seen, secrets = facts
    assert seen["root"] == sorted(seen["root"]) and {"submission", "tmp", "proc", "dev", "usr"} <= set(seen["root"])
    assert not {"home", "etc", "var", "opt", "srv", "mnt"} & set(seen["root"]), seen["root"]
    readable = seen["readable"]
    assert readable.pop(str(Path(sys.prefix) / "lib")), "the lab's environment must be readable (lazy imports)"
    # A folder on the way to a bound path exists, empty but for that way (/root holds .pyenv and nothing else).
    for path, found in readable.items():
        on_the_way = sorted({bound[len(path) + 1:].split("/")[0] for bound in bubblewrap.runtime_paths()
                             if bound.startswith(path.rstrip("/") + "/")})
        assert found in (None, on_the_way) and found is not True, f"{path} is visible in the sandbox: {found}"
    # A runtime under /tmp (a checkout cloned there) has its mount point made in the sandbox's own /tmp, a capped
    # tmpfs: a file written there is the sandbox's, as any in /tmp; the runtime's files under it stay read-only.
    in_tmp = [sys.prefix] if Path(sys.prefix).is_relative_to("/tmp") else []
    assert seen["writable"] == [*in_tmp, "/tmp", "/dev/shm"], seen["writable"]
    assert seen["tmp_bytes"] == Limits(cpu_seconds=1).tmp_bytes
    assert seen["cwd"] == "/tmp"


def test_the_learner_is_alone_without_privileges_network_or_namespaces_of_its_own(facts):
    seen, _ = facts
    assert seen["cap_eff"] == 0 and seen["no_new_privs"] == "1"
    assert seen["nested_userns"] == -1, "the learner could make a user namespace of its own"
    assert seen["interfaces"] == ["lo"], seen["interfaces"]
    assert seen["hostname"] == "agstate"
    assert seen["pids"][:2] == [1, 2] and len(seen["pids"]) <= 4, f"processes visible: {seen['pids']}"
    if IS_ROOT:
        assert seen["uid"] >= 2_000_000_000, "as root, each task runs as a uid of its own"


def test_the_learner_holds_nothing_of_the_grading_side(facts):
    seen, _ = facts
    assert seen["grading_modules"] == [], "the learner's process holds the grader's rules, models or Hypothesis"
    assert seen["reports"] == 0
    assert set(seen["environ"]) <= {"PATH", "LANG", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "HOME", "TMPDIR",
                                    cgroups.DISABLE}, seen["environ"]


def _living(uids: set[int] | None = None) -> list[tuple[int, int]]:
    """(uid, pid) of every process that is not a zombie (a killed process's exit is reaped by init)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            uid = os.stat(f"/proc/{pid}").st_uid
            with open(f"/proc/{pid}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X") and (uids is None or uid in uids):
            found.append((uid, int(pid)))
    return found


@pytest.mark.skipif(not IS_ROOT, reason="task uids and cgroups are made by a root grader")
def test_closing_a_session_leaves_no_process_cgroup_or_folder(tmp_path):
    submission = tmp_path / "submission"
    build_submission(submission)
    found = cgroups.detected()
    with staged(submission) as (copy, _):
        session = Session(copy, "state", Limits(cpu_seconds=30))
        session.probe("attr", "WINDOW", timeout=30)
        own = zygote.shared()._process.pid
        learners = {bubblewrap.learner_uid(own, slot) for slot in range(bubblewrap.UID_SLOTS)}
        assert {uid for uid, _ in _living(learners)}, "no learner uid while the task runs"
        session.close()
    assert not _living(learners), f"processes of the task's uid outlived its session: {_living(learners)}"
    if isinstance(found, cgroups.Cgroups):
        assert not [p for _, parent in found.parents for p in parent.glob(f"agstate-{own}-*")], "a task's cgroup is left"
    zygote.close_shared()
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob(f"agstate-sandbox-{own}-*")), "the zygote's folder is left"


@pytest.mark.skipif(not IS_ROOT, reason="task uids are made by a root grader")
def test_a_root_grader_whose_temporary_directory_is_private_still_grades():
    """TMPDIR inside a 0700 folder (a home's, pytest's own): the tasks' uids cannot pass through it, so the sandbox's
    view is made in /tmp. It was made in TMPDIR, and every task of every submission was the grader's failure."""
    private = Path(tempfile.mkdtemp(prefix="agstate-private-tmp-", dir="/tmp"))  # 0700
    try:
        (private / "tmp").mkdir()
        done = subprocess.run([sys.executable, "-m", "grader", str(SOLUTIONS), "--task", "state.dedupe", "--seed", "3"],
                              capture_output=True, text=True, timeout=300, cwd=ROOT, env={**os.environ, "TMPDIR": str(private / "tmp")})
        assert done.returncode == 0 and "15.0/15.0" in done.stdout, done.stdout + done.stderr
        assert not list((private / "tmp").glob("agstate-sandbox-*")), "a zygote's folder is left in TMPDIR"
    finally:
        shutil.rmtree(private)


def test_cgroups_can_be_turned_off(monkeypatch):
    monkeypatch.setenv(cgroups.DISABLE, "off")
    assert cgroups.detect() == "cgroups are turned off (AGSTATE_CGROUPS=off)"


def test_without_bubblewrap_one_submission_is_graded_and_says_so_and_a_batch_is_refused(tmp_path):
    no_bwrap = {**os.environ, "PATH": str(tmp_path)}  # no bwrap on PATH
    one = subprocess.run([sys.executable, "-m", "grader", str(SOLUTIONS), "--task", "state.decisions", "--json",
                          "--seed", "1"], capture_output=True, text=True, env=no_bwrap, cwd=ROOT, timeout=120)
    assert one.returncode == 0, one.stderr
    assert json.loads(one.stdout)["sandbox"] == "none"
    assert "bubblewrap (bwrap) is not installed" in one.stderr and "WITHOUT a sandbox" in one.stderr
    required = subprocess.run([sys.executable, "-m", "grader", str(SOLUTIONS), "--task", "state.decisions", "--json",
                               "--require-sandbox"], capture_output=True, text=True, env=no_bwrap, cwd=ROOT, timeout=120)
    assert required.returncode == 2 and required.stdout == ""  # a service grading others' code: not even one
    assert required.stderr.strip() == ("agstate-grade: refusing to grade without a sandbox (--require-sandbox): "
                                       f"{bubblewrap.NOT_INSTALLED}")
    two = subprocess.run([sys.executable, "-m", "grader", str(SOLUTIONS), str(ROOT), "--task", "state.decisions"],
                         capture_output=True, text=True, env=no_bwrap, cwd=ROOT, timeout=120)
    assert two.returncode == 2 and two.stdout == ""
    assert two.stderr.strip().splitlines() == [
        f"agstate-grade: refusing to grade 2 submissions without a sandbox: {bubblewrap.NOT_INSTALLED}; or pass "
        "--no-sandbox to grade trusted submissions without it"]
    # One submission into a gradebook (a --resume or --regrade of one student is one): a batch, refused alike.
    book, fresh = tmp_path / "grades.csv", tmp_path / "fresh.csv"
    args = [sys.executable, "-m", "grader", str(SOLUTIONS), "--task", "state.decisions", "--seed", "1"]
    assert subprocess.run([*args, "--out", str(book)], capture_output=True, env={**os.environ}, cwd=ROOT, timeout=120).returncode == 0
    kept = {path.name: path.read_bytes() for path in tmp_path.glob("grades.*")}
    for out, extra in ((fresh, []), (book, ["--resume"]), (book, ["--regrade"])):
        into = subprocess.run([*args, "--out", str(out), *extra], capture_output=True, text=True, env=no_bwrap, cwd=ROOT,
                              timeout=120)
        assert into.returncode == 2 and not fresh.exists(), (extra, into.stderr)
        assert f"refusing to write the gradebook {out} without a sandbox" in into.stderr, (extra, into.stderr)
    assert {path.name: path.read_bytes() for path in tmp_path.glob("grades.*")} == kept


def test_no_sandbox_is_a_loud_explicit_choice():
    done = run_cli(str(SOLUTIONS), "--task", "state.decisions", "--no-sandbox", "--seed", "1")
    assert done.returncode == 0
    assert "WITHOUT a sandbox" in done.stderr and "WARNING: graded WITHOUT a sandbox" in done.stdout
    as_json = run_cli(str(SOLUTIONS), "--task", "state.decisions", "--no-sandbox", "--json", "--seed", "1")
    assert json.loads(as_json.stdout)["sandbox"] == "none"


def test_an_installed_grader_is_hidden_whole_from_the_sandbox():
    """Installed (the kit's wheel), the grader lies inside the environment the sandbox binds: its whole package, rules
    and models included, is covered, not only the folder of the module that covers it."""
    import grader

    package = str(Path(grader.__file__).resolve().parent)
    environment = str(Path(package).parent)  # as site-packages holds an installed grader
    assert bubblewrap._hidden([environment]) == [package]
    assert bubblewrap._hidden(["/nowhere"]) == []


def test_what_a_tasks_replies_cost_the_grading_side_is_bounded(tmp_path):
    """One reply past REPLY_BYTES is never read (the batch's memory stays far from what the learner sent); replies
    under it stop at TASK_REPLY_BYTES for the task. Each is a crash that says so."""
    from grader.sandbox.session import REPLY_BYTES, TASK_REPLY_BYTES, ChildFailed

    greedy = "\n\ndef seven_mb():\n    return ['x' * 1999] * 3600\n\n\ndef forty_mb():\n    return [['x' * 1999] * 49] * 400\n"
    submission = build_submission(tmp_path / "greedy", modules={"state.py": (REFERENCE / "state.py").read_text() + greedy})
    with staged(submission) as (copy, _), Session(copy, "state", Limits(cpu_seconds=60)) as session:
        with pytest.raises(ChildFailed, match=f"more than {REPLY_BYTES // 2**20} MB while"):
            session.probe("call", "forty_mb", [], timeout=60)
        calls = 0
        with pytest.raises(ChildFailed, match=f"more than {TASK_REPLY_BYTES // 2**20} MB in this task"):
            while calls < 100:
                session.probe("call", "seven_mb", [], timeout=60)
                calls += 1
        assert calls == TASK_REPLY_BYTES // 7_207_300  # each reply 7.2 MB of JSON: 9 fit in the task's 64 MB
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert peak < 2 * 2**30, f"this process reached {peak / 2**20:.0f} MB"
