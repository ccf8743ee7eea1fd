"""No data breaks what the grader writes: reports, the log, the gradebook, the scorecard (docs/reference/report.md)."""

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support.paths import REFERENCE, ROOT

from grader import catalog
from grader.cli import render_text
from grader.engine.runner import _missing_module
from grader.notebook.check import scorecard_html
from grader.reports.gradebook import Gradebook, read_log, record
from grader.reports.owned import UntrustedLog
from grader.reports.safe import MAX_ITEMS, MAX_TEXT, clean, display_path, for_terminal
from grader.reports.scorecard import next_step
from grader.sandbox.staging import MAX_BYTES, MAX_FILES, StagingError, staged

pytestmark = pytest.mark.unit

# JSON-like data as a learner's process could make it: any text (lone surrogates too), any float.
learner_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(alphabet=st.characters(codec=None), max_size=80),
    lambda inner: st.lists(inner, max_size=60) | st.dictionaries(st.text(max_size=5), inner, max_size=60),
    max_leaves=200)


@settings(max_examples=300, deadline=None)
@given(learner_data)
def test_cleaned_data_is_strict_json_and_cleaning_twice_changes_nothing(value):
    once = clean(value)
    assert clean(once) == once
    text = json.dumps(once, allow_nan=False, ensure_ascii=False)
    text.encode("utf-8")  # no lone surrogate left
    assert json.loads(text, parse_constant=pytest.fail) == once


@settings(max_examples=200, deadline=None)
@given(learner_data, st.integers(min_value=0, max_value=5_000))
@example({"0": None, "0000": None, "0001": ["00", "000"], "00000": {"0": "\ud800"}}, 20)  # a lone surrogate, 6 once kept
def test_a_budgeted_clean_keeps_each_dicts_keys_and_repeats(value, characters):
    once = clean(value, budget=[characters])
    assert clean(once, budget=[characters]) == once
    if isinstance(value, dict):
        assert set(once) - {"…"} <= {clean(str(key)) for key in value}


def test_nested_capped_items_cannot_make_a_counterexample_of_megabytes():
    """Each string and list under its cap, 40 MB in all (a hostile reply): the counterexample is cut as a whole."""
    from grader.engine.runner import COUNTEREXAMPLE_CHARACTERS

    bomb = [[["x" * (MAX_TEXT - 1)] * (MAX_ITEMS - 1)] * (MAX_ITEMS - 1)] * 8
    assert len(json.dumps(clean(bomb))) > 38_000_000  # what one task could write before
    shown = clean({"call": "f", "args": [bomb], "expected": [], "got": bomb}, budget=[COUNTEREXAMPLE_CHARACTERS])
    assert len(json.dumps(shown)) < 4 * COUNTEREXAMPLE_CHARACTERS + 40_000
    assert list(shown) == ["call", "args", "expected", "got"] and shown["got"] == "…"


def test_long_strings_and_containers_are_cut_with_a_marker_saying_how_much():
    text = clean("x" * 40_000_000)
    assert len(text) <= MAX_TEXT and text.endswith(f"({40_000_000 - MAX_TEXT + 40} more characters)")
    items = clean(list(range(1000)))
    assert len(items) == MAX_ITEMS and items[-1] == f"… ({1000 - MAX_ITEMS + 1} more items)"
    assert clean(float("nan")) == "nan" and clean([float("-inf")]) == ["-inf"]
    assert clean("\udcff") == "\\udcff"


def test_the_terminal_gets_escapes_not_control_codes():
    shown = for_terminal("a\x1b[2J\x1b]0;pwned\x07\u202eevil\u2028b\nc\td")
    assert shown == "a\\x1b[2J\\x1b]0;pwned\\x07\\u202eevil\\u2028b\nc\td"


def test_a_scorecard_escapes_what_the_learner_sent():
    report = {"submission": "sub", "seed": 1, "score": 0.0, "max_score": 5.0, "sandbox": "bubblewrap",
              "tasks": [{"id": "state.decisions", "part": "state", "lab": "state", "score": 0.0, "max_score": 5.0, "status": "failed",
                         "feedback": "returned '\x1b[31mred\x1b[0m'"}]}
    text = render_text(report)
    assert "\x1b" not in text and "\\x1b[31mred" in text
    assert text.endswith("(repeat: agstate-grade sub --task state.decisions --seed 1)")


def test_a_failing_rule_after_one_not_written_yet_is_still_shown():
    rules = [{"rule": "A", "status": "not_implemented", "feedback": "not written yet"},
             {"rule": "B", "status": "failed", "feedback": "returned 2; expected 1"},
             {"rule": "C", "status": "passed"}]
    task = {"id": "state.dedupe", "part": "state", "lab": "state", "score": 0.0, "max_score": 15.0, "status": "not_implemented",
            "feedback": "not written yet. Also not passing: (2) B.", "rules": rules}
    report = {"submission": "sub", "seed": 1, "score": 0.0, "max_score": 15.0, "sandbox": "bubblewrap", "tasks": [task]}
    assert "(2) B: returned 2; expected 1" in render_text(report)
    assert "<li value='2'><b>B</b>: returned 2; expected 1</li>" in scorecard_html(report)


def test_a_repeat_line_keeps_the_parts_graded():
    tasks = [{"id": task_id, "part": "state", "lab": "state", "score": 1.0, "max_score": 1.0, "status": "passed", "feedback": ""}
             for task_id in ("state.overwrite", "state.append", "state.budget", "state.dedupe", "state.keep_max",
                             "state.window", "state.schemas", "state.decisions")]
    report = {"submission": "sub", "seed": 7, "score": 8.0, "max_score": 8.0, "tasks": tasks}
    assert render_text(report).endswith("(repeat: agstate-grade sub --part state --seed 7)")


def test_a_scorecard_says_where_to_go_next():
    def report(*statuses):
        tasks = [{"id": task_id, "part": "state", "lab": "state", "score": 0.0, "max_score": 1.0, "status": status,
                  "feedback": "not written yet" if status == "not_implemented" else "returned 2; expected 1"}
                 for task_id, status in zip(("state.overwrite", "state.append", "state.budget"), statuses)]
        return render_text({"submission": "sub", "seed": 7, "score": 0.0, "max_score": 3.0, "tasks": tasks}).splitlines()

    assert report("not_implemented", "not_implemented", "not_implemented")[-2] == \
        "next: state.overwrite, in notebook 01_overwrite.ipynb"  # three tasks of part A, not the part
    whole = [{"id": spec.id, "part": "state", "score": 0.0, "max_score": spec.max_score, "status": "not_implemented",
              "feedback": "not written yet"} for spec in catalog.tasks_of("state")]
    assert next_step(whole) == ["nothing is written yet: start with notebook 01_overwrite.ipynb"]  # its first lesson
    assert report("passed", "failed", "not_implemented")[-2] == "next: state.append, in notebook 02_append_and_budget.ipynb"
    assert report("passed", "passed", "passed")[-2].startswith("  state.budget")  # all passed: no hint


def _whole_lab(**statuses) -> dict:
    """A report of every task, not started but those given (a part name: every task of it has that status)."""
    tasks = [{"id": task_id, "part": spec.part, "score": 0.0, "max_score": spec.max_score,
              "status": statuses.get(task_id, statuses.get(spec.part, "not_implemented")), "feedback": "x", "rules": []}
             for task_id, spec in catalog.TASKS.items()]
    for task in tasks:
        if task["status"] == "passed":
            task["score"] = task["max_score"]
    return {"submission": "sub", "seed": 7, "score": sum(t["score"] for t in tasks), "max_score": 500.0, "tasks": tasks}


def test_next_follows_the_part_in_progress_then_the_part_after_the_last_one_done():
    assert next_step(_whole_lab()["tasks"]) == ["nothing is written yet: start with notebook 00_welcome.ipynb"]
    in_progress = _whole_lab(state="passed", **{"messages.upsert": "passed", "messages.trim": "failed"})
    assert next_step(in_progress["tasks"]) == ["next: messages.trim, in notebook 29_trim_without_orphans.ipynb"]
    assert next_step(_whole_lab(messages="passed")["tasks"]) == \
        ["part E done; next: part F. Pauses and upgrades, notebook 33_approve_once.ipynb"]
    assert next_step(_whole_lab(pauses="passed")["tasks"]) == \
        ["part F done; next: part A. Reducers and schemas, notebook 01_overwrite.ipynb"]
    assert next_step(_whole_lab(state="passed", board="passed")["tasks"]) == \
        ["part A, B done; next: part C. Event sourcing, notebook 13_invoice_timeout.ipynb"]
    assert next_step(_whole_lab(**{part.name: "passed" for part in catalog.PARTS})["tasks"]) == []
    one = [task for task in _whole_lab(messages="passed")["tasks"] if task["id"] == "state.dedupe"]
    assert next_step(one) == ["next: state.dedupe, in notebook 03_dedupe.ipynb"]  # a task, not a part: not "nothing"


def test_a_part_not_started_is_one_line():
    report = _whole_lab(messages="passed")
    lines = render_text(report).splitlines()
    assert "part B. Operations, not replacements: 0.0/100.0, not started: begin with notebook 07_replacement_bug.ipynb" \
        in lines
    assert not any(line.startswith("  board.") for line in lines) and "  messages.trim" in "\n".join(lines)
    page = scorecard_html(report)
    assert page.count("<tr><td>") == len(catalog.tasks_of("messages"))  # a row per task of the part begun only
    assert page.count(">not started<") == len(catalog.PARTS) - 1 and "begin with notebook 20_blind_merge.ipynb" in page


def test_a_grader_failure_is_named_and_an_unsandboxed_run_repeats_unsandboxed():
    report = {"submission": "sub", "seed": 3, "score": 0.0, "max_score": 15.0, "sandbox": "none",
              "tasks": [{"id": "state.dedupe", "part": "state", "score": 0.0, "max_score": 15.0, "status": "grader_error",
                         "feedback": "the grader failed, not your code: it could not start your code's process (OSError)"}]}
    text = render_text(report)
    assert "the grader itself failed" in text and "grader_error" in text
    assert text.endswith("(repeat: agstate-grade sub --task state.dedupe --seed 3 --no-sandbox)")
    page = scorecard_html(report)
    assert "The grader failed" in page and ">grader failed<" in page and "Graded without a sandbox" in page


def test_a_scorecard_of_several_parts_gives_each_part_its_subtotal():
    tasks = [{"id": task_id, "part": task_id.split(".")[0], "score": score, "max_score": 10.0, "status": status,
              "feedback": "x"} for task_id, score, status in
             [("state.overwrite", 10.0, "passed"), ("state.append", 5.0, "failed"), ("board.move", 0.0, "not_implemented")]]
    lines = render_text({"submission": "sub", "seed": 7, "score": 15.0, "max_score": 30.0, "tasks": tasks}).splitlines()
    assert lines[1] == "part A. Reducers and schemas: 15.0/20.0" and lines[2].startswith("  state.overwrite")
    assert "part B. Operations, not replacements: 0.0/10.0" in lines
    single = render_text({"submission": "sub", "seed": 7, "score": 15.0, "max_score": 20.0, "tasks": tasks[:2]})
    assert "part A" not in single  # one part: its tasks, no subtotal


def test_a_path_that_is_not_utf8_is_shown_with_escapes():
    assert display_path(os.fsdecode(b"submitted/ren\xe9e")) == "submitted/ren\\xe9e"


def _report(submission: str, feedback: str = "ok") -> dict:
    return {"submission": submission, "seed": 3, "score": 1.0, "max_score": 1.0, "sandbox": "bubblewrap",
            "tasks": [{"id": "state.decisions", "part": "state", "lab": "state", "score": 1.0, "max_score": 1.0, "status": "passed",
                       "feedback": feedback}]}


def test_a_log_record_is_one_ascii_line_whatever_it_holds(tmp_path):
    line = record(_report("s", "a\u2028b\u2029c\x85d\rnan"))
    assert line.endswith("\n") and line.count("\n") == 1 and line.isascii() and len(line.splitlines()) == 1
    book = Gradebook(str(tmp_path / "grades.csv"), {})
    book.add(_report("one", "x\u2028y"))
    book.add(_report("two"))
    assert set(read_log(str(tmp_path / "grades.csv"))) == {"one", "two"}
    assert read_log(str(tmp_path / "grades.csv"))["one"]["tasks"][0]["feedback"] == "x\u2028y"


def test_a_symlink_planted_at_the_log_is_refused_and_its_target_untouched(tmp_path):
    target = tmp_path / "instructor.txt"
    target.write_text("precious\n")
    (tmp_path / "grades.jsonl").symlink_to(target)
    with pytest.raises(UntrustedLog, match="symbolic link"):
        Gradebook(str(tmp_path / "grades.csv"), {})
    assert target.read_text() == "precious\n"


def test_a_symlink_planted_at_the_gradebook_is_replaced_not_written_through(tmp_path):
    target = tmp_path / "instructor.txt"
    target.write_text("precious\n")
    (tmp_path / "grades.csv").symlink_to(target)
    Gradebook(str(tmp_path / "grades.csv"), {}).add(_report("=HYPERLINK(\"http://x\")"))
    assert target.read_text() == "precious\n" and not (tmp_path / "grades.csv").is_symlink()
    rows = list(csv.reader((tmp_path / "grades.csv").open()))
    assert rows[1][0] == "'=HYPERLINK(\"http://x\")"  # text in a spreadsheet, not a formula


# -- staging: the copy of a stranger's folder ------------------------------------------------
def _package(tmp_path: Path) -> Path:
    package = tmp_path / "sub" / "agstate"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "state.py").write_text("X = 1\n")
    return tmp_path / "sub"


def test_a_sparse_file_is_refused_by_its_apparent_size(tmp_path):
    sub = _package(tmp_path)
    with open(sub / "agstate" / "big.bin", "wb") as handle:
        handle.truncate(10 * 2**30)
    with pytest.raises(StagingError, match=f"more than {MAX_BYTES // 2**20} MB"):
        with staged(sub):
            pass


def test_too_many_files_are_refused(tmp_path):
    sub = _package(tmp_path)
    for number in range(MAX_FILES):
        (sub / "agstate" / f"f{number}.txt").write_text("")
    with pytest.raises(StagingError, match=f"more than {MAX_FILES} files"):
        with staged(sub):
            pass


def test_links_and_fifos_are_left_out_and_named(tmp_path):
    sub = _package(tmp_path)
    os.mkfifo(sub / "agstate" / "pipe")
    (sub / "agstate" / "state.py").unlink()
    (sub / "agstate" / "state.py").symlink_to("/etc/passwd")
    with staged(sub) as (copy, skipped):
        assert sorted(p.name for p in (copy / "agstate").iterdir()) == ["__init__.py"]
        assert skipped == ["agstate/pipe (not a regular file)", "agstate/state.py (a symbolic link)"]
        assert _missing_module(copy, "state", skipped)["feedback"] == (
            "missing: the submission has no agstate/state.py (agstate/state.py is a symbolic link: hand in the file itself)")
        assert os.stat(copy).st_mode & 0o777 == 0o755 and os.stat(copy.parent).st_mode & 0o777 == 0o700


def test_a_folder_named_like_the_module_is_not_the_module(tmp_path):
    sub = _package(tmp_path)
    (sub / "agstate" / "state.py").unlink()
    (sub / "agstate" / "state").mkdir()
    (sub / "agstate" / "state" / "__init__.py").write_text("X = 1\n")
    with staged(sub) as (copy, skipped):
        assert _missing_module(copy, "state", skipped)["feedback"] == (
            "missing: the submission has no agstate/state.py (agstate/state/ is a folder: the exercise is the file "
            "agstate/state.py)")


@pytest.mark.parametrize("options", [["--part", "state"], ["--part", "state", "--json"]])
@pytest.mark.part
def test_a_reader_that_stops_reading_gets_no_traceback_and_the_grade_its_status(options):
    """``agstate-grade . | grep -q ...`` or ``| head``: the pipe closes before the report is written."""
    grading = subprocess.Popen([sys.executable, "-m", "grader", str(REFERENCE.parent), "--seed", "3", *options],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    grading.stdout.close()  # the reader is gone before the first line: the first write meets a broken pipe
    errors = grading.stderr.read().decode()
    assert grading.wait(timeout=300) == 0, errors  # the reference passes: the status is the grade's, not the pipe's
    assert errors == ""


@pytest.mark.parametrize("argv", [["--task", "state.dedupe", "--task", "state.window"],
                                  ["--task", "state.dedupe", "state.window"],
                                  ["--lab", "state", "--task", "state.dedupe", "state.window"]])
@pytest.mark.part
def test_repeated_and_listed_tasks_are_all_graded(argv):
    """``--task A --task B`` grades A and B, not only B (a learner's report); ``--lab`` is ``--part``'s old name."""
    from grader import cli

    plans = cli._plan(cli.parser().parse_args([str(ROOT / "solutions"), *argv])).plans
    assert [task_ids for _, task_ids in plans] == [["state.dedupe", "state.window"]]


@pytest.mark.part
def test_a_report_counts_each_tasks_cases_and_gives_seconds_only_when_asked(tmp_path):
    """``cases`` repeat with the seed and are always there; wall ``seconds`` only with --timings, and always in the log."""
    grade = [sys.executable, "-m", "grader", str(REFERENCE.parent), "--task", "state.dedupe", "state.decisions", "--seed", "3"]
    plain = json.loads(subprocess.run([*grade, "--json"], capture_output=True, text=True, cwd=ROOT, timeout=300).stdout)
    assert [task["cases"] for task in plain["tasks"]][0] > 300 and "seconds" not in plain["tasks"][0]
    timed = json.loads(subprocess.run([*grade, "--json", "--timings"], capture_output=True, text=True, cwd=ROOT,
                                      timeout=300).stdout)
    assert all(type(task["seconds"]) is float and task["seconds"] > 0 for task in timed["tasks"])
    assert [{k: v for k, v in task.items() if k != "seconds"} for task in timed["tasks"]] == plain["tasks"]
    card = subprocess.run([*grade, "--timings"], capture_output=True, text=True, cwd=ROOT, timeout=300).stdout
    assert re.search(r"^  state\.dedupe +15\.0/15\.0 +\d+\.\d\d s passed$", card, re.MULTILINE), card
    out = tmp_path / "grades.csv"
    printed = subprocess.run([*grade, "--json", "--out", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert "seconds" not in json.loads(printed.stdout)["tasks"][0]  # printed as it repeats; the log keeps the seconds
    logged = next(iter(read_log(str(out)).values()))
    assert all("seconds" in task for task in logged["tasks"])
    assert "seconds" not in out.read_text()  # the gradebook: scores only
