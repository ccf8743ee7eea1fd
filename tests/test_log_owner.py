"""A batch's log is this account's alone, or it is neither written nor resumed (``grader.reports.owned``).

In a sticky folder every account may write (``/tmp``, a course's shared
folder), another account may make the log at the path an instructor will
name with ``--out``, before the first run: the grader wrote its rows into
that file, which stayed the other account's, and that account rewrote them
before ``--resume`` read them back as grades given (issue 42). As root the
test makes a second account of its own for that (removed afterwards) and
plays it with ``setpriv``; a folder others may write without the sticky bit
needs no second account.
"""

import json
import os
import pwd
import subprocess

import pytest
from support.cli import run_cli
from support.folders import folder_in_tmp
from support.paths import SOLUTIONS

from grader.reports import owned

pytestmark = pytest.mark.part

IS_ROOT = os.geteuid() == 0
ACCOUNT = "agstate-logwriter"
GRADE = ["--task", "state.decisions", "--seed", "3"]
FORGED = json.dumps({"submission": str(SOLUTIONS), "seed": 3, "score": 100.0, "max_score": 5.0, "tasks": []}) + "\n"


@pytest.fixture(scope="module")
def stranger():
    """A second account, made for these tests and removed after them."""
    if not IS_ROOT:
        pytest.skip("needs root: a second account is made with useradd to own the planted log")
    made = subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", ACCOUNT], capture_output=True,
                          text=True)
    assert made.returncode in (0, 9), made.stderr  # 9: left by a run that was killed; removed below all the same
    try:
        yield pwd.getpwnam(ACCOUNT)
    finally:
        subprocess.run(["userdel", ACCOUNT], capture_output=True, check=True)


def _as(account: pwd.struct_passwd, script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}", "--clear-groups", "--",
                           "sh", "-c", script, "sh", *args], capture_output=True, text=True, cwd="/")


@pytest.fixture
def shared_folder():
    """A sticky folder every account may write, root's, like /tmp."""
    with folder_in_tmp("agstate-shared-", 0o1777) as folder:
        yield folder


def test_a_log_another_account_made_in_a_sticky_folder_is_neither_written_nor_resumed(stranger, shared_folder):
    out, log = shared_folder / "grades.csv", shared_folder / "grades.jsonl"
    planted = _as(stranger, 'printf "%s" "$1" > "$2" && chmod 644 "$2"', FORGED, str(log))
    assert planted.returncode == 0, planted.stderr
    for flag in ([], ["--resume"], ["--regrade"]):
        done = run_cli(str(SOLUTIONS), *GRADE, "--out", str(out), *flag)
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"the log {log}: it belongs to another account, {ACCOUNT} (uid {stranger.pw_uid})" in done.stderr, done.stderr
        assert "grade into a folder only you can write (e.g. --out ~/grades/grades.csv)" in done.stderr
    assert log.read_text() == FORGED and log.stat().st_uid == stranger.pw_uid  # never written through
    assert not out.exists()
    with open(log) as handle, pytest.raises(owned.UntrustedLog, match="belongs to another account"):
        owned.check_opened(log, handle)  # a log swapped in after the check by name is refused by its descriptor

    # Once the log is this account's, the other one can neither rewrite it nor put another in its place.
    assert _as(stranger, 'rm -f "$1"', str(log)).returncode == 0
    assert run_cli(str(SOLUTIONS), *GRADE, "--out", str(out)).returncode == 0
    written = log.read_text()
    assert _as(stranger, 'printf "%s" "$1" > "$2"', FORGED, str(log)).returncode != 0
    assert _as(stranger, 'printf "%s" "$1" > "$2.new" && mv -f "$2.new" "$2"', FORGED, str(log)).returncode != 0
    assert log.read_text() == written and log.stat().st_uid == os.geteuid()
    assert run_cli(str(SOLUTIONS), *GRADE, "--out", str(out), "--resume").returncode == 0


def test_a_sticky_folder_of_another_account_is_refused(stranger, shared_folder):
    """Its owner may rename or remove whatever is in it, the sticky bit notwithstanding."""
    os.chown(shared_folder, stranger.pw_uid, stranger.pw_gid)
    done = run_cli(str(SOLUTIONS), *GRADE, "--out", str(shared_folder / "grades.csv"))
    assert done.returncode == 2
    assert f"its folder {shared_folder} belongs to another account, {ACCOUNT} (uid {stranger.pw_uid})" in done.stderr, \
        done.stderr
    assert not (shared_folder / "grades.jsonl").exists()


def test_a_folder_others_may_write_without_the_sticky_bit_is_refused(shared_folder):
    """Anyone may replace the log there between two runs: refused before a first line is written."""
    shared_folder.chmod(0o777)
    done = run_cli(str(SOLUTIONS), *GRADE, "--out", str(shared_folder / "sub" / "grades.csv"))
    assert done.returncode == 2
    assert (f"its folder {shared_folder} can be written by every account on this server (mode 777, not sticky)"
            in done.stderr), done.stderr
    assert list(shared_folder.iterdir()) == []
