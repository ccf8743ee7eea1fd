"""Batch grading as an instructor runs it: globs, parallel jobs, a gradebook that survives interruption."""

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
from support.cli import run_cli as run_agstate_grade
from support.paths import LEARNER, REFERENCE, ROOT, SOLUTIONS
from support.submissions import build_submission

from grader.engine.registry import MODULES, TASKS
from grader.reports.report import without_seconds
from grader.reports.students import student_seed

pytestmark = pytest.mark.part

PART_A = [task_id for task_id in TASKS if task_id.startswith("state.")]
EXAMPLES = 20  # these tests hold the batch's mechanics, not the rules: a quarter of the default's examples, as many each run


def run_cli(*args: str, **options):
    """``agstate-grade`` as in conftest, at ``EXAMPLES`` examples per rule (a regrade or resume grades as the batch did)."""
    return run_agstate_grade(*args, "--examples", str(EXAMPLES), **options)


@pytest.fixture
def classroom(tmp_path):
    """An nbgrader-like tree: submitted/<student>/agstate-lab/agstate, three correct and one stub."""
    students = {"ada": REFERENCE, "bob": REFERENCE, "cy": LEARNER, "dee": REFERENCE}  # a class handing in part A
    for student, package in students.items():
        build_submission(tmp_path / "submitted" / student / "agstate-lab", parts=["state"], package=package)
    return tmp_path


def test_a_glob_grades_every_student_in_argument_order(classroom):
    done = run_cli(str(classroom / "submitted" / "*" / "agstate-lab"), "--json", "--seed", "8", "--jobs", "2")
    assert done.returncode == 1, done.stderr
    reports = json.loads(done.stdout)
    students = [r["submission"].split(os.sep)[-2] for r in reports]
    assert students == ["ada", "bob", "cy", "dee"]
    lost = [(r["submission"], t["id"], t["feedback"]) for r in reports for t in r["tasks"]
            if t["status"] not in ("passed", "not_implemented")]
    assert [r["score"] for r in reports] == [100.0, 100.0, 0.0, 100.0], lost
    assert done.stderr == ""  # no progress bar when stderr is not a terminal


def test_a_part_left_out_is_missing_not_skipped(classroom):
    done = run_cli(str(classroom / "submitted" / "ada" / "agstate-lab"), "--json", "--seed", "8")
    report = json.loads(done.stdout)
    assert report["max_score"] == sum(task.max_score for task in TASKS.values())
    for task in report["tasks"]:
        if task["part"] == "state":
            assert task["status"] == "passed"
        else:
            assert task["status"] == "error" and task["score"] == 0.0
            assert task["feedback"] == f"missing: the submission has no agstate/{MODULES[task['part']]}.py"


def test_a_class_larger_than_any_cap_gets_every_report(tmp_path):
    for number in range(60):  # more than output.MAX_ITEMS: the list of reports is never cut
        build_submission(tmp_path / f"s{number:02d}", parts=["state"])
    done = run_cli(str(tmp_path / "s*"), "--json", "--seed", "3", "--task", "state.decisions", "--jobs", "2")
    reports = json.loads(done.stdout)
    assert [r["submission"] for r in reports] == [str(tmp_path / f"s{number:02d}") for number in range(60)]
    assert done.returncode == 0, done.stderr


def test_a_submission_graded_task_by_task_on_idle_cores_gets_the_report_one_worker_makes(tmp_path):
    """Fewer submissions than jobs: each task is a worker of its own, and each submission's report is joined from its
    tasks' (``grader.engine.batch.joined``): byte for byte the report one worker grading task after task makes. Here
    part F passing, not started, missing, and a module that does not import, whose later tasks answer with the first
    one's feedback. (About 10 s: part F's five tasks, of four submissions, graded twice.)"""
    does_not_import = "raise RuntimeError('pauses.py stops at its import')\n"
    paths = [build_submission(tmp_path / "whole", parts=["pauses"]),
             build_submission(tmp_path / "stub", parts=["pauses"], package=LEARNER),
             build_submission(tmp_path / "missing", parts=["state"]),
             build_submission(tmp_path / "broken", parts=["pauses"], modules={"pauses.py": does_not_import})]
    args = [*map(str, paths), "--json", "--seed", "3", "--part", "pauses", "--timings"]
    in_order, apart = run_cli(*args, "--jobs", "1"), run_cli(*args, "--jobs", "5")
    assert in_order.returncode == apart.returncode == 1, apart.stderr
    untimed = [[without_seconds(report) for report in json.loads(done.stdout)] for done in (in_order, apart)]
    assert json.dumps(untimed[0]) == json.dumps(untimed[1])  # the same reports, keys in the same order
    whole, stub, missing, broken = untimed[1]
    assert whole["score"] == whole["max_score"] == 100.0
    assert {task["status"] for task in stub["tasks"]} == {"not_implemented"}
    assert {task["feedback"] for task in missing["tasks"]} == {"missing: the submission has no agstate/pauses.py"}
    assert len({task["feedback"] for task in broken["tasks"]}) == 1 and "stops at its import" in broken["tasks"][0]["feedback"]
    assert {task["status"] for task in broken["tasks"]} == {"error"}
    assert "load_problem" not in apart.stdout


def test_a_glob_that_matches_nothing_is_a_usage_error(tmp_path):
    done = run_cli(str(tmp_path / "submitted" / "*" / "agstate-lab"))
    assert done.returncode == 2 and "no submission directory matches" in done.stderr


def test_out_writes_a_gradebook_and_a_log(classroom):
    out = classroom / "grades.csv"
    done = run_cli(str(classroom / "submitted" / "*" / "agstate-lab"), "--seed", "9", "--out", str(out))
    assert done.returncode == 1
    rows = list(csv.DictReader(out.open()))
    assert [row["submission"].split(os.sep)[-2] for row in rows] == ["ada", "bob", "cy", "dee"]
    # Every part is graded for everyone: a part left out scores 0 of its points, so every row has one maximum.
    assert list(rows[0]) == ["submission", "seed", *TASKS, "total", "max_score"]
    assert [float(row["total"]) for row in rows] == [100.0, 100.0, 0.0, 100.0]
    assert {float(row["max_score"]) for row in rows} == {sum(task.max_score for task in TASKS.values())}
    assert float(rows[0]["board.models"]) == 0.0
    assert float(rows[2]["state.dedupe"]) == 0.0 and float(rows[0]["state.dedupe"]) == 15.0
    log = [json.loads(line) for line in out.with_suffix(".jsonl").read_text().splitlines()]
    assert sorted(r["submission"] for r in log) == sorted(row["submission"] for row in rows)
    assert "mean score 75.0" in done.stdout


def test_resume_skips_what_the_log_holds_and_keeps_its_seed(classroom):
    out = classroom / "grades.csv"
    pattern = str(classroom / "submitted" / "*" / "agstate-lab")
    first = run_cli(pattern, "--seed", "10", "--out", str(out), "--json")
    logged = out.with_suffix(".jsonl").read_text().splitlines()
    # An interrupted batch: two reports made it to the log, the third was torn mid-line.
    out.with_suffix(".jsonl").write_text("\n".join(logged[:2]) + "\n" + logged[2][:40])
    second = run_cli(pattern, "--out", str(out), "--resume", "--json")
    assert json.loads(second.stdout) == json.loads(first.stdout)
    assert len(out.with_suffix(".jsonl").read_text().splitlines()) == 4
    wrong_seed = run_cli(pattern, "--out", str(out), "--resume", "--seed", "11")
    assert wrong_seed.returncode == 2 and "graded with seed 10" in wrong_seed.stderr


def test_seed_per_student_gives_each_student_a_seed_of_their_own_and_records_it(classroom):
    out = classroom / "grades.csv"
    pattern = str(classroom / "submitted" / "*" / "agstate-lab")
    done = run_cli(pattern, "--seed", "9", "--seed-per-student", "--out", str(out), "--json")
    reports = json.loads(done.stdout)
    seeds = {r["student"]: r["seed"] for r in reports}
    assert seeds == {student: student_seed(9, student) for student in ("ada", "bob", "cy", "dee")}
    assert len(set(seeds.values())) == 4 and {r["batch_seed"] for r in reports} == {9}
    assert {row["submission"].split(os.sep)[-2]: int(row["seed"]) for row in csv.DictReader(out.open())} == seeds
    assert {json.loads(line)["seed"] for line in out.with_suffix(".jsonl").read_text().splitlines()} == set(seeds.values())
    # One student alone, with the seed the batch gave them: the same report (a regrade repeats).
    bob = next(r for r in reports if r["student"] == "bob")
    alone = run_cli(bob["submission"], "--part", "state", "--seed", "9", "--seed-per-student", "--json")
    assert json.loads(alone.stdout)["tasks"] == [task for task in bob["tasks"] if task["part"] == "state"]
    assert json.loads(alone.stdout)["seed"] == bob["seed"]
    # A log keeps the way it was graded: resuming it the other way is refused, not silently mixed.
    other = run_cli(pattern, "--seed", "9", "--out", str(classroom / "other.csv"))
    assert other.returncode == 1
    refused = run_cli(pattern, "--seed-per-student", "--out", str(classroom / "other.csv"), "--resume")
    assert refused.returncode == 2 and "graded without --seed-per-student" in refused.stderr


def test_regrade_appends_one_students_new_record_and_touches_no_other(classroom):
    out = classroom / "grades.csv"
    pattern = str(classroom / "submitted" / "*" / "agstate-lab")
    assert run_cli(pattern, "--seed", "13", "--part", "state", "--out", str(out)).returncode == 1
    log_before, rows_before = out.with_suffix(".jsonl").read_bytes(), list(csv.DictReader(out.open()))
    cy = classroom / "submitted" / "cy" / "agstate-lab"
    shutil.rmtree(cy / "agstate")
    build_submission(cy, parts=["state"])  # cy hands in the finished work late
    done = run_cli(str(cy), "--out", str(out), "--regrade")
    assert done.returncode == 0, done.stderr
    log_after = out.with_suffix(".jsonl").read_bytes()
    assert log_after.startswith(log_before)  # every earlier line as it was
    added = [json.loads(line) for line in log_after[len(log_before):].splitlines()]
    assert [(r["submission"], r["seed"], r["score"], r["logged"]["regraded"]) for r in added] == [
        (str(cy), 13, 100.0, True)]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", added[0]["logged"]["at"])
    rows_after = list(csv.DictReader(out.open()))
    assert [row for row in rows_after if "cy" not in row["submission"]] == [
        row for row in rows_before if "cy" not in row["submission"]]
    assert [float(row["total"]) for row in rows_after if "cy" in row["submission"]] == [100.0]
    assert len(rows_after[0]) == len(rows_before[0])  # graded on the log's tasks (part A), not on every part
    for wrong, message in ((["--regrade"], "needs --out"), (["--out", str(classroom / "none.csv"), "--regrade"],
                                                           "nothing to regrade"),
                           (["--out", str(out), "--regrade", "--resume"], "choose one")):
        refused = run_cli(str(cy), *wrong)
        assert refused.returncode == 2 and message in refused.stderr


def test_lms_writes_the_grades_canvas_imports_next_to_the_gradebook(classroom):
    """The CLI's end of grader.reports.lms (tests/test_lms.py checks the format's rules): a roster, a file, the warnings."""
    out, roster = classroom / "grades.csv", ROOT / "tests" / "lms_fixtures" / "canvas_gradebook.csv"
    done = run_cli(str(classroom / "submitted" / "*" / "agstate-lab"), "--part", "state", "--seed", "4", "--out", str(out),
                   "--lms", "canvas", "--roster", str(roster), "--lms-assignment", "agstate lab (1234)")
    assert done.returncode == 1, done.stderr
    rows = list(csv.reader(out.with_suffix(".canvas.csv").open(encoding="utf-8")))
    assert rows[0][-1] == "agstate lab (1234)" and rows[1][0].strip() == "Points Possible"
    assert [(row[3], row[-1]) for row in rows[2:]] == [("ada", "100")]  # SIS Login ID ada is nbgrader's ada
    assert "not in the roster's 'SIS Login ID' column" in done.stderr and "'bob', 'cy', 'dee'" in done.stderr
    for wrong, message in ((["--lms", "canvas"], "--lms needs --roster"),
                           (["--lms", "moodle", "--roster", str(roster), "--out", str(out)], "Username")):
        refused = run_cli(str(classroom / "submitted" / "ada" / "agstate-lab"), *wrong)
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr


def test_an_instructors_slips_are_refused_before_grading(classroom, tmp_path):
    """The review's slips: a glob one level short, --out naming the log, a task set other than the log's."""
    short = run_cli(str(classroom / "submitted" / "*"), "--out", str(tmp_path / "g.csv"))
    assert short.returncode == 2 and "none of the 4 folders holds an agstate/ package" in short.stderr
    assert "'submitted/*/<assignment>'" in short.stderr and not (tmp_path / "g.csv").exists()
    log_named = run_cli(str(classroom / "submitted" / "ada" / "agstate-lab"), "--out", str(tmp_path / "g.jsonl"))
    assert log_named.returncode == 2 and "use --out" in log_named.stderr and str(tmp_path / "g.csv") in log_named.stderr
    out = classroom / "grades.csv"
    pattern = str(classroom / "submitted" / "*" / "agstate-lab")
    assert run_cli(pattern, "--part", "state", "--seed", "3", "--out", str(out)).returncode == 1
    for flag in ("--regrade", "--resume"):
        other = run_cli(str(classroom / "submitted" / "ada" / "agstate-lab"), "--out", str(out), flag,
                        "--task", "state.keep_max")
        assert other.returncode == 2 and "was graded on 8 tasks (part state)" in other.stderr, other.stderr
    # The same folder written another way ("./", a trailing slash) is the same submission of the log.
    again = run_cli(str(classroom / "submitted" / "ada" / "agstate-lab") + "/", "--out", str(out), "--regrade")
    assert again.returncode == 0 and len(list(csv.DictReader(out.open()))) == 4


def test_a_regrade_of_someone_not_in_the_log_grades_them_as_new(classroom):
    out = classroom / "grades.csv"
    assert run_cli(str(classroom / "submitted" / "ada" / "agstate-lab"), "--part", "state", "--seed", "3",
                   "--out", str(out)).returncode == 0
    new = run_cli(str(classroom / "submitted" / "bob" / "agstate-lab"), "--out", str(out), "--regrade")
    assert new.returncode == 0 and "graded as a new submission, not a regrade" in new.stderr
    last = json.loads(out.with_suffix(".jsonl").read_text().splitlines()[-1])
    assert "bob" in last["submission"] and "regraded" not in last["logged"]


def test_student_ids_are_told_apart_or_refused(tmp_path):
    from grader.reports.students import StudentIdError, student_ids

    assert student_ids(["submitted/ana/lab", "submitted/bo/lab"]) == {"submitted/ana/lab": "ana", "submitted/bo/lab": "bo"}
    assert student_ids(["clones/ana/lab", "clones/bo/lab"]) == {"clones/ana/lab": "ana", "clones/bo/lab": "bo"}
    assert student_ids(["No\u0065\u0308l"]) == {"No\u0065\u0308l": "No\u00ebl"}  # macOS's decomposed form, composed
    with pytest.raises(StudentIdError, match="same student 'lab'"):
        student_ids(["a/x/lab", "b/x/lab"])


def test_resume_needs_out():
    done = run_cli(str(SOLUTIONS), "--resume")
    assert done.returncode == 2 and "--resume needs --out" in done.stderr


def test_an_interrupted_batch_keeps_every_finished_result(classroom):
    slow = classroom / "submitted" / "zed" / "agstate-lab"
    build_submission(slow, parts=["state"])
    state = slow / "agstate" / "state.py"
    state.write_text(state.read_text().replace("WINDOW = 3\n", "WINDOW = 3\nimport time\ntime.sleep(600)\n"))
    out = classroom / "grades.csv"
    scratch = classroom / "tmp"  # the batch's TMPDIR: where its staged copies and sandbox folders go
    scratch.mkdir()
    batch = subprocess.Popen([sys.executable, "-m", "grader", str(classroom / "submitted" / "*" / "agstate-lab"),
                              "--seed", "12", "--out", str(out), "--jobs", "2", "--timeout", "60",
                              "--examples", str(EXAMPLES)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             env={**os.environ, "TMPDIR": str(scratch)})
    log = out.with_suffix(".jsonl")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 4):
        time.sleep(0.2)
    os.killpg(batch.pid, signal.SIGINT)  # Ctrl-C at a terminal: the whole foreground group
    _, stderr = batch.communicate(timeout=60)
    assert batch.returncode == 130, stderr
    assert "interrupted; 4 of 5 graded" in stderr and "--resume" in stderr
    assert len(log.read_text().splitlines()) == 4
    # Graded for real: with the batch's TMPDIR in pytest's 0700 folder, every task was once the grader's failure
    # (grader.sandbox.keeper._view_parent), the four were done at once and Ctrl-C came after the fifth.
    finished = [json.loads(line) for line in log.read_text().splitlines()]
    assert {report["submission"].split(os.sep)[-2]: report["score"] for report in finished} == \
        {"ada": 100.0, "bob": 100.0, "cy": 0.0, "dee": 100.0}  # in the order they finished: compared as a mapping
    assert len(list(csv.DictReader(out.open()))) == 4
    # Workers and learner processes are forks of the batch: their command line names the classroom.
    leftovers = subprocess.run(["pgrep", "-f", str(classroom)], capture_output=True, text=True).stdout
    assert leftovers == ""
    # The submission graded when Ctrl-C came (its staged copy, its sandbox's folder): nothing of it is left.
    assert sorted(path.name for path in scratch.iterdir()) == []


def test_ctrl_c_while_a_report_is_recorded_waits_for_the_record():
    """The race the test above once lost on CI (its log held 4 reports, its count said 3), forced: Ctrl-C inside
    the recording of a finished report is raised once the report is in the log, the gradebook and the count."""
    from grader.cli import _ctrl_c_after

    recorded = []
    with pytest.raises(KeyboardInterrupt):
        with _ctrl_c_after():
            os.kill(os.getpid(), signal.SIGINT)
            recorded.append("log")
            recorded.append("count")
    assert recorded == ["log", "count"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C is itself again


def test_logs_gathered_from_several_machines_give_one_gradebook(classroom):
    """Shards graded apart (docs/instructor/at-scale.md): their logs joined, --resume writes the gradebook."""
    pattern = str(classroom / "submitted" / "*" / "agstate-lab")
    whole = classroom / "whole.csv"
    run_cli(pattern, "--seed", "13", "--out", str(whole))
    halves = []
    for number, shard in enumerate((["ada", "bob"], ["cy", "dee"])):
        out = classroom / f"shard-{number}.csv"
        run_cli(*[str(classroom / "submitted" / name / "agstate-lab") for name in shard], "--seed", "13", "--out", str(out))
        halves.append(out.with_suffix(".jsonl").read_text())
    gathered = classroom / "course.csv"
    gathered.with_suffix(".jsonl").write_text("".join(halves))
    done = run_cli(pattern, "--out", str(gathered), "--resume")
    assert done.returncode == 1 and "4 submissions graded with seed 13" in done.stdout  # nothing left to grade
    assert gathered.read_text() == whole.read_text()


def test_resume_refuses_a_log_another_account_made_or_may_write(tmp_path):
    """A log planted in a shared folder where the instructor's --out will point: its rows are not trusted."""
    out = tmp_path / "grades.csv"
    assert run_cli(str(SOLUTIONS), "--task", "state.decisions", "--seed", "3", "--out", str(out)).returncode == 0
    log = out.with_suffix(".jsonl")
    log.chmod(0o666)
    for flag in ("--resume", "--regrade"):
        done = run_cli(str(SOLUTIONS), "--task", "state.decisions", "--seed", "3", "--out", str(out), flag)
        assert done.returncode == 2 and "can be written by other accounts" in done.stderr, done.stderr
    log.chmod(0o644)
    if os.geteuid() == 0:  # as root, the log handed to another account
        os.chown(log, 65534, 65534)
        done = run_cli(str(SOLUTIONS), "--task", "state.decisions", "--seed", "3", "--out", str(out), "--resume")
        assert done.returncode == 2 and "belongs to another account, nobody (uid 65534)" in done.stderr, done.stderr
        os.chown(log, 0, 0)
    assert run_cli(str(SOLUTIONS), "--task", "state.decisions", "--seed", "3", "--out", str(out), "--resume").returncode == 0


def test_a_submission_spelled_two_ways_is_one_row_and_a_regraded_student_keeps_their_seed(classroom):
    """``a``, ``./a/`` and ``/abs/a`` are one submission; --regrade of one student of a --seed-per-student class keeps
    the student id and seed the class run gave them (alone, their folder would name them otherwise)."""
    out = classroom / "grades.csv"
    pattern = str(classroom / "submitted" / "*" / "agstate-lab")
    args = ["--task", "state.decisions", "--seed", "21", "--seed-per-student", "--out", str(out)]
    assert run_cli(pattern, *args).returncode == 1  # cy's stub loses the task
    first = {r["submission"]: r for r in map(json.loads, out.with_suffix(".jsonl").read_text().splitlines())}
    ada = str(classroom / "submitted" / "ada" / "agstate-lab")
    relative = os.path.relpath(ada, ROOT) + "/"
    done = run_cli(relative, "./" + relative, *args, "--regrade")
    assert done.returncode == 0, done.stderr
    assert "is a submission named already: graded once" in done.stderr
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 4  # one row each, ada's regraded in place
    last = json.loads(out.with_suffix(".jsonl").read_text().splitlines()[-1])
    assert last["submission"] == ada and last["logged"].get("regraded") is True
    assert (last["student"], last["seed"]) == (first[ada]["student"], first[ada]["seed"]) == ("ada", student_seed(21, "ada"))


def test_a_student_regraded_alone_keeps_the_id_and_seed_their_class_gave_them(classroom):
    """Outside nbgrader's layout a class's students are told apart by their folders' parents (class/<student>/lab);
    regraded alone, a submission would be named by its own folder ("lab"), and get another seed."""
    for student in ("eve", "fay"):
        build_submission(classroom / "class" / student / "lab", parts=["state"])
    out = classroom / "class.csv"
    args = ["--task", "state.decisions", "--seed", "22", "--seed-per-student", "--out", str(out)]
    assert run_cli(str(classroom / "class" / "*" / "lab"), *args).returncode == 0
    eve = str(classroom / "class" / "eve" / "lab")
    assert run_cli(eve, *args, "--regrade").returncode == 0
    last = json.loads(out.with_suffix(".jsonl").read_text().splitlines()[-1])
    assert (last["submission"], last["student"], last["seed"]) == (eve, "eve", student_seed(22, "eve"))


def test_a_part_no_submission_holds_is_not_drawn_ahead(tmp_path, monkeypatch):
    """A batch draws ahead only the tasks of parts some submission holds: an empty folder's report drew 8 s of
    examples on two cores for nothing. (About 2 s: one task of the reference graded.)"""
    from grader.engine import batch

    drawn = []
    monkeypatch.setattr(batch.drawing, "draw_in_parallel", lambda task_ids, *rest: drawn.append(task_ids))
    shutil.copytree(SOLUTIONS / "agstate", tmp_path / "a" / "agstate", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "a" / "agstate" / "board.py").unlink()
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    reports = {}
    plans = [(str(tmp_path / name), ["state.keep_max", "board.move"]) for name in ("a", "b")]
    batch.grade_many(plans, 7, 5, 60.0, 1024, 2, reports.__setitem__)
    assert drawn == [["state.keep_max"]]
    assert [task["status"] for task in reports[0]["tasks"]] == ["passed", "error"]  # board.py missing: said, not drawn
