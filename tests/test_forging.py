"""A forging block appended to the stubs earns nothing where a report says its verdict rests on calls.

For each part, the untouched stubs plus that part's forging block
(``tests/hostile/forging.py``) are graded in one batch beside the untouched
stubs, sandboxed, as root and as an ordinary user (``tests/support/private_clone.py``),
and through ``check()`` in a fresh process: every task says ``"integrity":
"calls"`` and has the stub's status and score. The block reaches the
learner's process's probe registry and answers every fold, script, race
and scenario that process ever ran, so one still asked there would score.
Part B's alone, graded on its own, is the quick check of its reducer's
calls (issue 42b: they were probes until then, and the block turned them).

Cost: one batch of six submissions, every task of five parts, twice as root (~1 min each), five check()s, and part B's
batch of two (~20 s).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile.forging import FILES, FORGING
from support.folders import folder_in_tmp
from support.paths import ROOT, SOLUTIONS
from support.private_clone import ORDINARY_USER, as_account, private_clone

from grader.catalog import MODULES

pytestmark = pytest.mark.part

SEED = 7
IS_ROOT = os.geteuid() == 0
ACCOUNTS = ["root", "ordinary user"] if IS_ROOT else ["this user"]


def _stubs(folder: Path, forged: str | None = None) -> Path:
    """The kit's untouched stubs in ``folder/agstate`` (the learner copies), with ``forged``'s block appended."""
    shutil.copytree(ROOT / "agstate", folder / "agstate", ignore=shutil.ignore_patterns("__pycache__"))
    if forged is not None:
        module = folder / "agstate" / f"{MODULES[forged]}.py"
        module.write_text(module.read_text() + "\n" + FORGING[forged])
        for name, source in FILES.get(forged, {}).items():
            shutil.copy(SOLUTIONS / source, folder / "agstate" / name)
    return folder


@pytest.fixture(scope="module")
def submissions():
    with folder_in_tmp("agstate-forging-", 0o755) as root:
        paths = {"stub": _stubs(root / "stub")} | {part: _stubs(root / f"forged-{part}", part) for part in FORGING}
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield paths


def _tasks(report: dict) -> list[tuple]:
    return [(task["id"], task["status"], task["score"]) for task in report["tasks"]]


@pytest.mark.parametrize("account", ACCOUNTS)
def test_a_forging_block_on_the_stubs_earns_what_the_stubs_earn(submissions, account):
    parts = [arg for part in FORGING for arg in ("--part", part)]
    # Few examples: a stub raises at its first call, and the block answers from the first (the batch draws every part's
    # examples ahead, which at the default 80 was most of its time).
    args = ["-m", "grader", *(str(path) for path in submissions.values()), "--json", "--seed", str(SEED), "--examples", "10",
            *parts]
    if account == "ordinary user":
        clone = private_clone(ORDINARY_USER)
        done = subprocess.run(as_account(clone, [str(clone.python), *args]), capture_output=True, text=True, cwd="/",
                              env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": clone.home, "LANG": "C.UTF-8"},
                              timeout=1200)
    else:
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=1200)
    reports = json.loads(done.stdout)
    stub, *forged = reports
    assert stub["sandbox"] == "bubblewrap" and stub["score"] == 0.0, _tasks(stub)
    for part, report in zip(FORGING, forged):
        _earns_what_the_stubs_earn(part, report, stub)


def _earns_what_the_stubs_earn(part: str, report: dict, stub: dict) -> None:
    assert report["sandbox"] == "bubblewrap"
    on_probes = sorted(task["id"] for task in report["tasks"] if task["integrity"] != "calls")
    assert not on_probes, f"part {part}: tasks resting on more than calls {on_probes}"
    assert report["integrity"] == "calls"
    assert _tasks(report) == _tasks(stub), f"the stubs plus part {part}'s forging block: {_tasks(report)}"


def test_part_b_s_block_earns_what_part_b_s_stubs_earn(submissions):
    """Part B's reducer tasks asked probes of the learner's process until issue 42b (its block scored 24/100 there,
    every reducer task on "probes"): now its reducer's calls are made and folded from the grading side."""
    args = ["-m", "grader", str(submissions["stub"]), str(submissions["board"]), "--json", "--seed", str(SEED),
            "--part", "board"]
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)
    stub, forged = json.loads(done.stdout)
    assert stub["score"] == 0.0, _tasks(stub)
    _earns_what_the_stubs_earn("board", forged, stub)


@pytest.mark.parametrize("part", list(FORGING))
def test_check_in_a_kernel_gives_a_forging_block_what_it_gives_the_stubs(submissions, part):
    """The notebook's path: ``check(part)`` from the workspace, the grader's own process (no warm grader here)."""
    grade = ("import json, sys; from grader.notebook.check import check; "
             f"print(json.dumps(float(check(sys.argv[1], seed={SEED}))))")
    env = {**os.environ, "AGSTATE_WORKSPACE": str(submissions[part])}
    done = subprocess.run([sys.executable, "-c", grade, part], capture_output=True, text=True, cwd=submissions[part],
                          env=env, timeout=600)
    assert json.loads(done.stdout.splitlines()[-1]) == 0.0, done.stdout[-3000:] + done.stderr[-2000:]
