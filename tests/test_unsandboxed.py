"""Without the sandbox, grading is the same grading: the learner who cannot have bubblewrap still gets a true score.

An ordinary user (as root, the account ``agstate-tester``, from its own
private checkout: ``tests/support/private_clone.py``) grades

- part by part, the reference and the mutants that break, between them,
  every task of the part (so every scenario runs, failing and passing) and
  one that waits on a limit (a retry loop, stopped by the grader), in a
  sandbox and then where no user namespace can be made (a hub's container:
  ``unshare`` sets ``user.max_user_namespaces`` so that the grader's own
  processes can make none) with ``--no-sandbox``: every report is the
  sandboxed one, task by task and byte by byte, but for ``"sandbox"``. What
  differs without a sandbox is how the learner's process is started, held
  and stopped, which these exercise in every task; each mutant's own verdict
  is test_mutants.py's (grading all 259 both ways cost 15 minutes of CI's
  two cores, for no check these do not make);
- with bubblewrap hidden from ``PATH``, through ``agstate-grade`` and
  through ``check()``: the reference passes, the stubs are not started
  (never "crashed"), the run says it was unsandboxed, and its repeat line
  says ``--no-sandbox``.

A grader that truly cannot start the learner's process says so: the task's
status is ``grader_error``, its feedback names the grader, and the command
line exits with 2.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest
from support import submissions
from support.corpus import corpora
from support.folders import folder_in_tmp
from support.paths import LEARNER, SOLUTIONS
from support.private_clone import ORDINARY_USER, as_account, private_clone

from grader.catalog import tasks_of
from grader.engine import runner
from grader.sandbox import zygote

pytestmark = pytest.mark.part

CORPORA = corpora()
SEED = 23
# Per task; a single call gets a twentieth of it (grader.engine.runner). Roomy: scores are compared here, and a lockstep race
# slowed past its call's limit by the rest of the suite on two cores is a timeout in one mode and not in the other.
TIMEOUT = 60
IS_ROOT = os.geteuid() == 0
# Run as the account, "$@" where the grader's processes cannot make a user namespace: the outer namespace (root
# inside, so it may set the limit) allows one more, the inner one that maps the account back to itself.
NO_USER_NAMESPACES = ('echo 1 > /proc/sys/user/max_user_namespaces && '
                      'exec /usr/bin/unshare --user --map-user="$UID_" --map-group="$GID_" -- "$@"')


# A mutant that waits on a limit (a blind retry loop): the learner's process is stopped by the grader, which is where
# an unsandboxed grading could differ.
WAITING = {"resolve_blind_retry"}
# Passed over when other mutants break what it breaks: a write lock never released, or a transaction never committed,
# waits out the call's limit (60 s, then 30 s more of the suite, on one core), and is stopped the same way as the retry
# loop. path_ignored breaks what never_commits breaks in a third of its time.
PASSED_OVER = {"no_rollback", "never_commits"}


def graded_both_ways(corpus) -> list:
    """The mutants graded here: the fewest, taken greedily (the most tasks broken first, the corpus's order among
    equals, those ``PASSED_OVER`` last), that break every task of the part between them; and those in ``WAITING``."""
    chosen, broken = [], set()
    for mutant in sorted(corpus.mutants, key=lambda mutant: (mutant.name in PASSED_OVER, -len(mutant.breaks))):
        if not mutant.breaks <= broken or mutant.name in WAITING:
            chosen.append(mutant)
            broken |= mutant.breaks
    return chosen


@pytest.fixture(scope="module")
def clone():
    return private_clone(ORDINARY_USER if IS_ROOT else None)


@pytest.fixture(scope="module")
def folder(clone):
    """A folder of the account's, under /tmp (pytest's own is 0700 and root's): submissions and an empty PATH."""
    with folder_in_tmp("agstate-unsandboxed-", 0o700) as path:
        (path / "no-bwrap").mkdir()
        _own(clone, path)
        yield path


def _own(clone, path: Path) -> None:
    subprocess.run(["chown", "-R", f"{clone.uid}:{clone.gid}", str(path)], check=True)


def grade(clone, args: list[str], *, userns: bool = True, path: str = "/usr/local/bin:/usr/bin:/bin",
          python: list[str] | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The clone's grader (``python -m grader args``, or ``python``) as its account, as that account's shell runs it."""
    command = python or [str(clone.python), "-m", "grader", *args]
    if not userns:
        command = ["/usr/bin/unshare", "--user", "--map-root-user", "/bin/sh", "-c", NO_USER_NAMESPACES, "sh", *command]
    environment = {"PATH": path, "HOME": clone.home, "LANG": "C.UTF-8", "UID_": str(clone.uid), "GID_": str(clone.gid),
                   **(env or {})}
    return subprocess.run(as_account(clone, command), capture_output=True, text=True, cwd="/", env=environment,
                          timeout=1800)


def _reports(done: subprocess.CompletedProcess) -> list[dict]:
    try:
        found = json.loads(done.stdout)
    except ValueError:
        raise AssertionError(f"no JSON (exit {done.returncode}): {done.stdout[-1000:]}{done.stderr[-3000:]}") from None
    return found if isinstance(found, list) else [found]


def test_the_waiting_mutants_are_in_the_corpora():
    assert WAITING | PASSED_OVER <= {mutant.name for corpus in CORPORA for mutant in corpus.mutants}


@pytest.mark.slow
@pytest.mark.parametrize("corpus", CORPORA, ids=[corpus.name for corpus in CORPORA])
def test_every_mutant_scores_without_user_namespaces_what_it_scores_in_the_sandbox(clone, folder, corpus):
    part = folder / corpus.name
    paths = [submissions.build_submission(part / "reference")]
    chosen = graded_both_ways(corpus)
    assert set().union(*(mutant.breaks for mutant in chosen)) == set(corpus.task_ids)
    paths += [corpus.build_submission(mutant, part / mutant.name) for mutant in chosen]
    _own(clone, part)
    args = [*map(str, paths), "--json", "--part", corpus.name, "--seed", str(SEED), "--examples", str(corpus.examples),
            "--timeout", str(TIMEOUT), "--jobs", "1"]
    sandboxed = grade(clone, args)
    unsandboxed = grade(clone, [*args, "--no-sandbox"], userns=False)
    assert "bubblewrap cannot make a sandbox here" not in sandboxed.stderr, sandboxed.stderr[-2000:]
    boxed, bare = _reports(sandboxed), _reports(unsandboxed)
    assert [r["sandbox"] for r in boxed] == ["bubblewrap"] * len(paths) and [r["sandbox"] for r in bare] == ["none"] * len(paths)
    assert boxed[0]["score"] == 100.0, [(t["id"], t["feedback"][:300]) for t in boxed[0]["tasks"] if t["status"] != "passed"]
    for inside, outside in zip(boxed, bare):
        shown = [(t["id"], t["status"], t["score"]) for t in outside["tasks"]]
        assert outside.pop("unsandboxed") == "--no-sandbox was given" and "unsandboxed" not in inside
        assert {**outside, "sandbox": "bubblewrap"} == inside, f"{inside['submission']}: {shown}"
    assert "Traceback" not in unsandboxed.stderr, unsandboxed.stderr[-3000:]


@pytest.mark.slow
def test_without_bubblewrap_the_cli_and_check_grade_and_say_so(clone, folder):
    reference = submissions.build_submission(folder / "reference")
    stubs = submissions.build_submission(folder / "stubs", package=LEARNER)
    _own(clone, folder)
    hidden = str(folder / "no-bwrap")  # a PATH with no bwrap on it: the grader finds none

    done = grade(clone, [str(reference), "--part", "messages", "--seed", "4"], path=hidden)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "bubblewrap (bwrap) is not installed" in done.stderr and "Traceback" not in done.stderr
    assert "WARNING: graded WITHOUT a sandbox" in done.stdout and "(no sandbox: bubblewrap (bwrap) is not installed" in done.stdout
    assert done.stdout.rstrip().endswith(f"(repeat: agstate-grade {reference} --part messages --seed 4 --no-sandbox)")

    started = grade(clone, [str(stubs), "--json", "--seed", "4"], path=hidden)
    report = _reports(started)[0]
    assert started.returncode == 1 and report["sandbox"] == "none"
    assert {task["status"] for task in report["tasks"]} == {"not_implemented"}, \
        [(t["id"], t["status"], t["feedback"][:200]) for t in report["tasks"] if t["status"] != "not_implemented"]

    script = "from grader import check; points = check('messages', seed=4); print('points', points)"
    checked = grade(clone, [], path=hidden, python=[str(clone.python), "-c", script],
                    env={"AGSTATE_WORKSPACE": str(reference)})
    assert "points 100.0" in checked.stdout, checked.stdout[-3000:] + checked.stderr[-3000:]
    assert "WARNING: graded WITHOUT a sandbox" in checked.stdout and "Traceback" not in checked.stderr
    for path in (reference, stubs):
        assert not (path / ".hypothesis").exists()


@pytest.mark.slow
def test_without_user_namespaces_check_grades_the_stubs_as_not_started(clone, folder):
    stubs = submissions.build_submission(folder / "stubs-no-userns", package=LEARNER)
    _own(clone, stubs)
    script = "from grader import check; print('points', check('state.dedupe', seed=2))"
    checked = grade(clone, [], userns=False, python=[str(clone.python), "-c", script], env={"AGSTATE_WORKSPACE": str(stubs)})
    assert "points 0.0" in checked.stdout and "not_implemented" in checked.stdout, checked.stdout[-2000:] + checked.stderr[-2000:]
    assert "crashed" not in checked.stdout


def test_a_learner_process_the_grader_cannot_start_is_the_graders_failure(monkeypatch, tmp_path):
    """The zygote gone: every task says the grader failed, and never blames the learner's code."""
    def gone(self, request, fds):
        raise OSError(32, "Broken pipe")

    monkeypatch.setattr(zygote.Zygote, "spawn", gone)
    report = runner.grade_submission(str(SOLUTIONS), [task.id for task in tasks_of("state")][:2], seed=1)
    assert {task["status"] for task in report["tasks"]} == {"grader_error"}
    for task in report["tasks"]:
        assert task["feedback"].startswith("the grader failed, not your code: its zygote, which starts your code's "
                                           "process, is gone"), task["feedback"]
        assert task["score"] == 0.0


def test_the_command_line_exits_2_when_the_grader_failed(monkeypatch, capsys):
    from grader import cli

    def gone(self, request, fds):
        raise OSError(32, "Broken pipe")

    monkeypatch.setattr(zygote.Zygote, "spawn", gone)  # the batch's workers are forks: they inherit it
    assert cli.main([str(SOLUTIONS), "--task", "state.dedupe", "--seed", "1", "--jobs", "1"]) == 2
    shown = capsys.readouterr().out
    assert "grader_error" in shown and "the grader itself failed" in shown


def test_a_grader_error_said_by_the_learners_process_is_not_the_graders():
    """The learner's process can be made to say anything: its word never makes a task the grader's failure."""
    from grader.sandbox import session

    with pytest.raises(session.ChildFailed) as raised:
        session._outcome({"grader_error": "unknown probe 'x'"})
    assert raised.value.status == "crashed" and "unknown probe 'x'" in raised.value.message


def test_the_sandboxs_word_for_its_own_failure_is_the_reports():
    from grader.reports import report
    from grader.sandbox import session

    assert session.GRADER_ERROR == report.GRADER_ERROR and report.GRADER_ERROR in report.STATUSES
