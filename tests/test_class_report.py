"""The class report (``agstate-grade report``): from a graded class's log, exactly the rules its mutants break.

A class of part A is graded once for the module (references, mutants of the
corpus in known numbers, a stub in a folder named as HTML, a crash, a timeout,
an answer in HTML);
the report must count each broken task and rule for exactly the students
whose mutant breaks it (the corpus's ``breaks``), list the stub as not
started rather than failing, list the crash and the timeout, group the
counterexamples by shape, and show it all in a page Chromium renders with
nothing of a submission run as HTML.
"""

import json
import shutil

import pytest
from support.cli import run_cli
from support.corpus import Corpus
from support.paths import LEARNER, REFERENCE, ROOT
from support.submissions import apply_edits, build_submission

from grader.reports.class_page import load
from grader.reports.class_summary import difference, shape_of, summarize

pytestmark = pytest.mark.part

ARTIFACT = ROOT / "artifacts" / "class_report.png"
HOSTILE_NAME = "<img src=x onerror=alert(1)>"
CLASS = {  # student -> mutant name (None: the reference)
    "alice": None, "bob": None,
    "cat1": "append_splits_str", "cat2": "append_splits_str", "cat3": "append_splits_str",
    "dan1": "merge_last_occurrence", "dan2": "merge_last_occurrence",
    "eve": "keep_max_zero_is_absent",
    "fay": "keep_max_returns_min",
}
# Hand-made: the learner's process killed in merge_sources, stuck in keep_max, or answering with HTML that would
# run in the page if it were not escaped; the graph of state.schemas calls both functions. (edit, status, tasks)
MERGE, KEEP = "    seen = set()\n    merged = []\n", "    if old is None:\n        return new\n    if new is None:\n        return old\n"
HAND_MADE = {
    "crash": ((MERGE, "    import os\n    os.kill(os.getpid(), 9)\n"), "crashed", {"state.dedupe", "state.schemas"}),
    "hang": ((KEEP, "    while True:\n        pass\n"), "timeout", {"state.keep_max", "state.schemas"}),
    "html": ((MERGE, "    return ['<script>alert(1)</script>']\n"), "failed", {"state.dedupe", "state.schemas"}),
}
DOWN = {student: (status, tasks) for student, (_, status, tasks) in HAND_MADE.items() if status != "failed"}


STATE = Corpus("state")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class, graded on part A with --out; its log."""
    where = tmp_path_factory.mktemp("class")
    for student, name in CLASS.items():
        folder = where / "submitted" / student / "agstate-lab"
        if name is None:
            build_submission(folder, parts=["state"])
        else:
            STATE.build_submission(name, folder)
    build_submission(where / "submitted" / HOSTILE_NAME / "agstate-lab", parts=["state"], package=LEARNER)  # a stub
    reference = (REFERENCE / "state.py").read_text()
    for student, (edit, _, _) in HAND_MADE.items():
        build_submission(where / "submitted" / student / "agstate-lab",
                         modules={"state.py": apply_edits(reference, [edit], student, "state.py")})
    out = where / "grades.csv"
    # At the corpus's examples, at which each mutant's breaks are what the grader catches (test_mutants.py).
    done = run_cli(str(where / "submitted" / "*" / "agstate-lab"), "--part", "state", "--seed", "3", "--timeout", "4",
                   "--examples", str(STATE.examples), "--out", str(out))
    assert done.returncode == 1, done.stderr
    return out.with_suffix(".jsonl")


def _broken_by(task_id):
    """Students whose submission must fail ``task_id``: the corpus's breaks, the crash, the timeout."""
    students = {student for student, name in CLASS.items() if name and task_id in STATE.mutant(name).breaks}
    return students | {student for student, (_, _, tasks) in HAND_MADE.items() if task_id in tasks}


@pytest.mark.slow
def test_the_report_counts_exactly_the_tasks_and_rules_the_mutants_break(graded):
    reports = load(str(graded))
    summary = summarize(reports)
    assert summary.students == len(CLASS) + len(HAND_MADE) + 1 and summary.seeds == [3]
    assert summary.not_started == {"state": [HOSTILE_NAME]}  # counted apart, not as failing every rule
    started = len(CLASS) + len(HAND_MADE)
    assert {task_id: (failing, of) for task_id, failing, _, of in summary.tasks if failing} == {
        task_id: (len(_broken_by(task_id)), started) for task_id in
        ("state.append", "state.window", "state.dedupe", "state.keep_max", "state.schemas")}
    assert sorted((student, task_id, status) for student, task_id, status, _ in summary.down) == sorted(
        (student, task_id, status) for student, (status, tasks) in DOWN.items() for task_id in tasks)
    # Each listed rule is one of a broken task, and counts exactly the students whose own report fails it.
    for rule in summary.rules:
        failing = {report["submission"].split("/")[-2] for report in reports for task in report["tasks"]
                   if task["id"] == rule.task for r in task.get("rules", []) if r["rule"] == rule.rule
                   and r["status"] != "passed"} - {HOSTILE_NAME}
        assert failing <= _broken_by(rule.task) and rule.failing == len(failing) > 0, rule
        assert sum(shape.students for shape in rule.shapes) == rule.failing
    split = next(r for r in summary.rules if r.rule == "a bare str is one item, never split into characters")
    assert split.failing == 3 and [(s.text, s.students) for s in split.shapes] == [
        ("append: a string split into characters", 3)]
    assert [r.failing for r in summary.rules] == sorted((r.failing for r in summary.rules), reverse=True)
    # The mistakes by task: each student once per shape, however many of the task's rules the one bug breaks.
    append = next(m for m in summary.mistakes if m.task == "state.append")
    assert (append.failing, [(s.text, s.students) for s in append.shapes][:1]) == (
        3, [("append: a string split into characters", 3)])
    assert all(sum(s.students for s in m.shapes) >= m.failing for m in summary.mistakes)


@pytest.mark.slow
def test_the_page_renders_in_chromium_and_runs_nothing_from_a_submission(graded, tmp_path):
    from support.browser import chromium_page

    page_path = tmp_path / "report.html"
    done = run_cli("report", str(graded), "-o", str(page_path))
    assert done.returncode == 0, done.stderr
    text = page_path.read_text()
    assert HOSTILE_NAME not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # html's merge_sources answer
    with chromium_page(1280, 900) as page:
        dialogs = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(page_path.as_uri())
        assert page.title() == "agstate lab: class report"
        assert page.locator("img[src=x]").count() == 0 and not dialogs
        plot = page.locator("img[alt='score distribution per part']")
        assert plot.evaluate("image => image.complete && image.naturalWidth > 200")  # the embedded PNG decodes
        rows = page.locator("table").nth(0).locator("tr").all_inner_texts()
        assert rows[1].split("\t")[:3] == ["state.dedupe", "03_dedupe.ipynb", "4 of 12"]
        ARTIFACT.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACT), full_page=True)


def test_report_of_a_missing_or_empty_log_is_a_usage_error(tmp_path):
    done = run_cli("report", str(tmp_path / "none.jsonl"))
    assert done.returncode == 2 and "no batch log at" in done.stderr
    (tmp_path / "empty.jsonl").write_text("not json\n")
    done = run_cli("report", str(tmp_path / "empty.jsonl"))
    assert done.returncode == 2 and "holds no report" in done.stderr


def test_a_submission_folder_named_report_is_still_graded(tmp_path):
    shutil.copytree(REFERENCE, tmp_path / "report" / "agstate")
    done = run_cli("report", "--task", "state.decisions", "--seed", "1", "--json", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["submission"] == "report"


@pytest.mark.parametrize(("expected", "got", "kind"), [
    (["doc-1"], ["d", "o", "c", "-", "1"], "a string split into characters"),
    (["a", "b"], ["b", "a"], "the right items in the wrong order"),
    (["a"], ["a", "a"], "items repeated (duplicates kept)"),
    (["a", "b", "c"], ["a", "b"], "items missing (the first ones kept)"),
    (["a", "b", "c"], ["b", "c"], "items missing (the last ones kept)"),
    (["a"], ["a", "b"], "extra items"),
    (["a"], [], "an empty list"),
    ([1], (1,), "tuple instead of a list"),
    (0, -1, "too small"),
    (None, 0, "a number instead of None"),
    ({"a": 1, "b": 2}, {"a": 1, "b": 3}, "a different b"),
    ({"a": 1, "b": 2}, {"a": 1}, "keys b missing"),
    ([], "raised TypeError: x", "raised TypeError"),
    ("a new list", "the argument itself", "the argument itself instead of a new list"),
])
def test_difference_names_the_kind_without_the_values(expected, got, kind):
    assert difference(expected, got) == kind


def test_a_shape_is_the_call_and_the_kind_or_the_feedback_without_its_values():
    rule = {"status": "failed", "feedback": "windowed(7)([], 'a') returned [...]",
            "counterexample": {"call": "windowed(7)", "args": [], "expected": ["a"], "got": []}}
    assert shape_of(rule) == "windowed(n): an empty list"
    mutated = {**rule, "feedback": "keep_recent([], ['a']) changed its argument old to ['a']; a reducer never mutates "
                                   "its arguments"}
    assert shape_of(mutated) == "windowed(n): changed its argument"
    first = {"status": "failed", "counterexample": None,
             "feedback": "invoke({'question': '0'}) gave trace ['intake', 'lookup']; expected ['intake']"}
    second = {**first, "feedback": "invoke({'question': 'zz'}) gave trace ['intake']; expected ['intake', 'x', 'y']"}
    assert shape_of(first) == shape_of(second) == "invoke({…}) gave trace […]; expected […]"


def _task(task_id, status, rules=(), feedback=""):
    return {"id": task_id, "part": "state", "status": status, "score": 10.0 if status == "passed" else 0.0,
            "max_score": 10.0, "feedback": feedback, "rules": list(rules)}


def _report(name, tasks):
    return {"submission": f"submitted/{name}/lab", "seed": 1, "score": sum(t["score"] for t in tasks),
            "max_score": 10.0 * len(tasks), "tasks": tasks}


def test_students_whose_code_did_not_load_and_unwritten_tasks_are_counted_apart():
    """The review's class: a syntax error is not a mistake of every rule, a stub task is not a mistake at all,
    and an exception class a submission made up is not named in a shape."""
    own = {"rule": "r", "status": "error", "feedback": "append([], 'a') raised GIVE ME MARKS: see me",
           "counterexample": {"call": "append", "args": [], "expected": ["a"], "got": "raised GIVE ME MARKS"}}
    builtin = {**own, "feedback": "append([], 'a') raised TypeError: x",
               "counterexample": {**own["counterexample"], "got": "raised TypeError"}}
    reports = [
        _report("syn", [_task("state.append", "error", feedback="agstate/state.py, line 3: invalid syntax. More"),
                        _task("state.dedupe", "error", feedback="agstate/state.py, line 3: invalid syntax. More")]),
        _report("stubby", [_task("state.append", "passed", [{"rule": "r", "status": "passed"}]),
                           _task("state.dedupe", "not_implemented", [{"rule": "d", "status": "not_implemented"}])]),
        _report("own", [_task("state.append", "error", [own]), _task("state.dedupe", "passed")]),
        _report("typed", [_task("state.append", "error", [builtin]), _task("state.dedupe", "passed")]),
    ]
    summary = summarize(reports)
    assert summary.not_loaded == {"state": [("syn", "agstate/state.py, line 3: invalid syntax")]}
    assert {task_id: (failing, unwritten, started) for task_id, failing, unwritten, started in summary.tasks} == {
        "state.append": (2, 0, 3), "state.dedupe": (0, 1, 3)}
    assert [(r.task, r.rule, r.failing) for r in summary.rules] == [("state.append", "r", 2)]
    assert sorted(s.text for s in summary.rules[0].shapes) == ["append: raised TypeError",
                                                              "append: raised an exception of its own"]


def test_a_rule_failed_in_several_languages_is_one_rule_named_in_the_readers_language(monkeypatch):
    """A class graded in English, Spanish, Chinese and Russian: each report names the rule in its student's
    language, and the summary counts them as one rule, keyed by its English (the catalogs' msgid)."""
    from grader import i18n

    sentence = "a bare str is one item, never split into characters"
    said = [sentence, *(i18n.translation(lang).gettext(sentence) for lang in ("es", "zh_CN", "ru"))]
    assert len(set(said)) == 4  # four languages, four texts

    def failing(text):
        return {"rule": text, "status": "failed", "feedback": "append([], 'ab') returned ['a', 'b']; expected ['ab']",
                "counterexample": {"call": "append", "args": [[], "ab"], "expected": ["ab"], "got": ["a", "b"]}}

    reports = [_report(f"s{number}", [_task("state.append", "failed", [failing(text)])]) for number, text in enumerate(said)]
    summary = summarize(reports)
    assert [(r.task, r.rule, r.failing, r.started) for r in summary.rules] == [("state.append", sentence, 4, 4)]
    monkeypatch.setenv("AGSTATE_LANG", "es")  # the instructor reads the page in their language
    assert [r.rule for r in summarize(reports).rules] == [said[1]]


def test_a_mistake_made_in_several_languages_is_one_shape(monkeypatch):
    """The same mistakes graded in English, Spanish, Chinese and Russian: a changed argument (its feedback's wording
    says so) and a feedback without a counterexample each make one shape, read in the feedback's English
    (``grader.i18n.english``), their four students counted together."""
    from grader import i18n

    rule = "a bare str is one item, never split into characters"
    changed = "{text} changed its argument {label} to {after}; a reducer never mutates its arguments"
    missing = "{what}: the run never paused; it must ask the person with interrupt(request) before paying"
    rules = []
    for lang in ("en", "es", "zh_CN", "ru"):
        monkeypatch.setenv("AGSTATE_LANG", lang)
        rules.append([
            {"rule": i18n._(rule), "status": "failed",
             "feedback": i18n._(changed).format(text="append([1], 2)", label="current", after="[1, 2]"),
             "counterexample": {"call": "append", "args": [[1], 2], "expected": [1, 2], "got": [1, 2]}},
            {"rule": i18n._(rule), "status": "failed",
             "feedback": i18n._(missing).format(what=f"approval of 'r{len(rules)}'")}])
    monkeypatch.delenv("AGSTATE_LANG")
    assert len({one[0]["feedback"] for one in rules}) == 4 and len({one[1]["feedback"] for one in rules}) == 4
    assert [shape_of(one[0]) for one in rules] == ["append: changed its argument"] * 4
    assert len({shape_of(one[1]) for one in rules}) == 1
    assert shape_of(rules[0][1]) == "approval of '…': the run never paused; it must ask the person with interrupt(request) " \
                                    "before paying"
    reports = [_report(f"s{number}", [_task("state.append", "failed", one)]) for number, one in enumerate(rules)]
    [failures] = summarize(reports).rules
    assert [(shape.text, shape.students) for shape in failures.shapes] == sorted(
        [("append: changed its argument", 4), (shape_of(rules[0][1]), 4)], key=lambda s: s[0])
