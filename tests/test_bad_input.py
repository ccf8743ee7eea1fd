"""Bad input gets a clear, specific message and costs nothing else (docs/reference/report.md)."""

import json

import pytest
from support.cli import run_cli
from support.paths import SOLUTIONS
from support.submissions import build_submission

from grader.engine.registry import TASKS
from grader.engine.runner import grade_submission
from grader.sandbox.reach import INTEGRITY

pytestmark = pytest.mark.part

PART_A = [task_id for task_id in TASKS if task_id.startswith("state.")]


@pytest.mark.parametrize(
    "args, message",
    [
        (["/no/such/dir"], "no such submission directory: /no/such/dir"),
        ([str(SOLUTIONS), "--part", "nope"], "unknown part 'nope'"),
        ([str(SOLUTIONS), "--task", "state.nope"], "unknown task 'state.nope'"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args, message):
    done = run_cli(*args, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_a_directory_without_agstate_errors_every_task(tmp_path):
    done = run_cli(str(tmp_path), "--json", "--seed", "1")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert sorted(t["id"] for t in report["tasks"]) == sorted(TASKS)  # no part present: every part, each an error
    for task in report["tasks"]:
        assert task["status"] == "error"
        assert task["feedback"].startswith("missing: the submission has no agstate/__init__.py")


def test_a_folder_named_like_a_glob_is_that_folder(tmp_path):
    build_submission(tmp_path / "ana[1]")
    (tmp_path / "ana1" / "agstate").mkdir(parents=True)  # what the pattern "ana[1]" matches: an empty package
    done = run_cli(str(tmp_path / "ana[1]"), "--json", "--seed", "1", "--task", "state.dedupe")
    report = json.loads(done.stdout)
    assert report["submission"] == str(tmp_path / "ana[1]") and report["score"] == report["max_score"]


def test_a_syntax_error_names_file_and_line(make_submission):
    source = (SOLUTIONS / "agstate" / "state.py").read_text().replace("WINDOW = 3", "WINDOW = = 3")
    path = make_submission(source)
    report = grade_submission(str(path), PART_A, 1)
    line = source.splitlines().index("WINDOW = = 3") + 1
    for task in report["tasks"]:
        assert task["status"] == "error"
        assert f"agstate/state.py, line {line}" in task["feedback"]
        assert "WINDOW = = 3" in task["feedback"]


def test_an_exception_at_import_names_the_learners_line(make_submission):
    path = make_submission(edits=[("LOOKUP_ROUNDS = 3  # any int >= 2", "LOOKUP_ROUNDS = 3 // 0")])
    report = grade_submission(str(path), ["state.append", "state.window"], 1)
    for task in report["tasks"]:
        assert task["status"] == "error"
        assert "ZeroDivisionError" in task["feedback"] and "agstate/state.py, line" in task["feedback"]


def test_a_missing_function_is_named(make_submission):
    path = make_submission(edits=[("def keep_recent(old, new) -> list:", "def keep_latest(old, new) -> list:"),
                                  ("recent: Annotated[list[str], keep_recent]", "recent: Annotated[list[str], keep_latest]")])
    report = {t["id"]: t for t in grade_submission(str(path), PART_A, 2)["tasks"]}
    assert report["state.window"]["status"] == "error"
    assert "agstate/state.py has no 'keep_recent'" in report["state.window"]["feedback"]
    assert all(t["status"] == "passed" for i, t in report.items() if i != "state.window")


def test_a_missing_class_is_named(make_submission):
    path = make_submission(edits=[("class NaiveState(TypedDict):", "class SimpleState(TypedDict):")])
    report = {t["id"]: t for t in grade_submission(str(path), PART_A, 3)["tasks"]}
    assert report["state.overwrite"]["status"] == "error"
    assert "has no 'NaiveState'" in report["state.overwrite"]["feedback"]
    assert all(t["status"] == "passed" for i, t in report.items() if i != "state.overwrite")


def test_learner_prints_never_reach_json_stdout(make_submission):
    path = make_submission(edits=[
        ("WINDOW = 3\n", "WINDOW = 3\nprint('hello from import')\nimport sys\nprint('to stderr', file=sys.stderr)\n"),
        ('    return [*(old or ()), *_items(new)]', '    print("appending", old, new)\n    return [*(old or ()), *_items(new)]'),
    ])
    done = run_cli(str(path), "--json", "--seed", "4", "--task", "state.append", "state.decisions")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["score"] == 20.0
    assert "hello" not in done.stdout and "appending" not in done.stdout


def test_values_that_only_pretend_do_not_pass(make_submission):
    # An object equal to everything, and a list subclass equal to everything.
    path = make_submission(edits=[("    return [*(old or ()), *_items(new)]",
                                   "    class Yes(list):\n        def __eq__(self, other):\n            return True\n"
                                   "    return Yes([*(old or ()), *_items(new)])")])
    report = {t["id"]: t for t in grade_submission(str(path), ["state.append"], 5)["tasks"]}
    assert report["state.append"]["status"] == "failed"
    assert "not a list" in report["state.append"]["feedback"]


def test_an_infinite_loop_costs_only_its_task(make_submission):
    path = make_submission(edits=[("    # `is None`, never truthiness: 0 is a real score.", "    while True:\n        pass")])
    report = {t["id"]: t for t in grade_submission(str(path), ["state.keep_max", "state.dedupe"], 6, timeout=3)["tasks"]}
    assert report["state.keep_max"]["status"] == "timeout"
    assert report["state.keep_max"]["score"] < 15
    assert report["state.dedupe"]["status"] == "passed"


def test_sys_exit_and_os_exit_inside_a_reducer_are_contained(make_submission, monkeypatch):
    monkeypatch.setenv(INTEGRITY, "off")  # os._exit is a module's private name: the reading would refuse it first
    path = make_submission(edits=[("    return append(old, new)[-WINDOW:]", "    import os\n    os._exit(3)"),
                                  ("    # `is None`, never truthiness: 0 is a real score.", "    raise SystemExit(1)")])
    report = {t["id"]: t for t in grade_submission(str(path), ["state.window", "state.keep_max", "state.append"], 7)["tasks"]}
    assert report["state.window"]["status"] == "crashed"
    assert "exit status 3" in report["state.window"]["feedback"]
    assert report["state.keep_max"]["status"] == "error" and "SystemExit" in report["state.keep_max"]["feedback"]
    assert report["state.append"]["status"] == "passed"
