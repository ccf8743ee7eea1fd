"""The grader's sentences in every language: catalogs complete and right, the language chosen as documented, scorecards
translated, English untouched. Unit tier: no learner process (about 2 s in all)."""

import html
import json
import os
import re
import subprocess
import sys

import pytest
from support.paths import ROOT

from grader import i18n
from grader.authoring import messages
from grader.i18n import _, language, ngettext
from grader.notebook.kernel import unwritten
from grader.reports.scorecard import render_text, scorecard_html, student_page_html

pytestmark = pytest.mark.unit

LANGS = ("es", "zh_CN", "ru")


@pytest.fixture
def no_language(monkeypatch):
    """No language chosen by this process's environment (AGSTATE_LANG, then the locale's): a test sets the one it
    means."""
    for variable in ("AGSTATE_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)


def test_every_catalog_is_complete_its_placeholders_match_and_its_mo_is_compiled_from_it():
    # Babel's checks (% formats, plural forms), {placeholders} as the English has them, nothing fuzzy or untranslated,
    # every marked sentence merged, each committed .mo equal to its .po compiled (messages.problems).
    assert messages.problems() == []


def test_a_wrong_placeholder_a_fuzzy_entry_and_a_stale_mo_are_each_found(tmp_path):
    import shutil

    shutil.copytree(ROOT / "grader", tmp_path / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "babel.cfg", tmp_path / "babel.cfg")
    po = messages.po_path("es", tmp_path)
    text = po.read_text()
    text = text.replace('msgstr "siguiente: {task}, en el cuaderno {notebook}"', 'msgstr "siguiente: {tarea}, en el cuaderno {notebook}"')
    text = text.replace('msgid "grading…"', '#, fuzzy\nmsgid "grading…"')
    po.write_text(text)
    found = "\n".join(messages.problems(tmp_path, langs=("es",)))
    assert "placeholders ['notebook', 'task'] became ['notebook', 'tarea']" in found
    assert "fuzzy: 'grading…'" in found
    assert "its .mo is not the .po compiled" in found


# The parts whose rules' sentences are in the catalogs: all of them.
TRANSLATED_PARTS = ("state", "board", "events", "branches", "messages", "pauses")


def test_every_rule_sentence_of_the_translated_parts_is_marked_and_translated():
    from grader.engine.registry import TASKS

    marked = {message.id for message in messages.template() if message.id}
    sentences = [rule.sentence for task in TASKS.values() if task.part in TRANSLATED_PARTS for rule in task.rules]
    assert len(sentences) > 100
    assert [sentence for sentence in sentences if sentence not in marked] == []  # N_() where the part declares it
    for lang in LANGS:  # complete catalogs hold them all; a sentence left as its English would be a slip
        assert [s for s in sentences if i18n.translation(lang).gettext(s) == s] == [], lang


@pytest.mark.parametrize("environment, expected", [
    ({"AGSTATE_LANG": "es", "LANG": "ru_RU.UTF-8"}, "es"),
    ({"LC_ALL": "zh_CN.UTF-8", "LANG": "es_ES.UTF-8"}, "zh_CN"),
    ({"LC_MESSAGES": "ru_RU.UTF-8", "LANG": "es_ES.UTF-8"}, "ru"),
    ({"LANG": "es_MX.UTF-8"}, "es"),
    ({"AGSTATE_LANG": "zh-CN"}, "zh_CN"),
    ({"AGSTATE_LANG": "zh"}, "zh_CN"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),  # a language the lab has not: English, not the next variable
    ({"LANG": "C.UTF-8"}, "en"),
    ({"AGSTATE_LANG": "", "LANG": "ru_RU.UTF-8"}, "ru"),  # set but empty counts as unset
    ({}, "en"),
])
def test_the_language_is_agstate_lang_else_the_locale_else_english(no_language, monkeypatch, environment, expected):
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    assert language() == expected


def _report(status="not_implemented"):
    tasks = [{"id": "state.overwrite", "part": "state", "lab": "state", "score": 0.0, "max_score": 10.0, "cases": 0,
              "status": "failed", "feedback": "NaiveState.trace kept both writes", "counterexample": None,
              "rules": [{"rule": "one", "status": "failed", "feedback": "a"}, {"rule": "two", "status": "failed", "feedback": "b"},
                        {"rule": "three", "status": "failed", "feedback": "c"}]},
             {"id": "board.models", "part": "board", "lab": "board", "score": 0.0, "max_score": 10.0, "cases": 0,
              "status": status, "feedback": "stub", "counterexample": None},
             {"id": "board.replace", "part": "board", "lab": "board", "score": 0.0, "max_score": 90.0, "cases": 0,
              "status": status, "feedback": "stub", "counterexample": None}]
    return {"submission": ".", "seed": 3, "score": 0.0, "max_score": 110.0, "sandbox": "none", "tasks": tasks}


@pytest.mark.parametrize("lang", LANGS)
def test_a_scorecard_in_each_language_says_the_catalogs_sentences(monkeypatch, lang):
    monkeypatch.setenv("AGSTATE_LANG", lang)
    catalog = i18n.translation(lang)
    terminal, page = render_text(_report()), scorecard_html(_report())
    said = {
        "next": catalog.gettext("next: {task}, in notebook {notebook}").format(task="state.overwrite", notebook="01_overwrite.ipynb"),
        "warning": catalog.gettext("graded WITHOUT a sandbox: the learner's code ran as you, with access to everything you can read"),
        "status": catalog.gettext("failed"),
        "part": catalog.gettext("Operations, not replacements"),
    }
    for key, sentence in said.items():
        assert sentence in terminal, (key, sentence, terminal)
    more = catalog.ngettext("{count} more rule not passing", "{count} more rules not passing", 2).format(count=2)
    for sentence in (more, catalog.gettext("not started"), catalog.gettext("feedback"), said["next"], said["part"]):
        assert html.escape(sentence) in page, (sentence, page)
    assert not re.search(r"\bnext:|\bfailing\b|not started|more rules", terminal + page)  # no English left


def test_russian_plural_forms_follow_the_count(monkeypatch):
    monkeypatch.setenv("AGSTATE_LANG", "ru")
    forms = [ngettext("{count} more rule not passing", "{count} more rules not passing", n).format(count=n) for n in (1, 3, 5, 21)]
    assert forms == ["ещё 1 правило не проходит", "ещё 3 правила не проходят", "ещё 5 правил не проходят",
                     "ещё 21 правило не проходит"]


def test_english_is_the_source_unchanged(monkeypatch):
    monkeypatch.setenv("AGSTATE_LANG", "en")
    for message in messages.template():
        if message.id:
            singular = message.id[0] if isinstance(message.id, tuple) else message.id
            assert _(singular) == singular
    assert "next: state.overwrite, in notebook 01_overwrite.ipynb" in render_text(_report())
    assert "score 0.0/110.0  (repeat: agstate-grade . --task" in render_text(_report())
    assert "<summary>2 more rules not passing</summary>" in scorecard_html(_report())


@pytest.mark.parametrize("lang", LANGS)
def test_the_kernel_and_the_students_page_speak_the_language_too(monkeypatch, lang):
    monkeypatch.setenv("AGSTATE_LANG", lang)
    catalog = i18n.translation(lang)
    stub = "state.append: append() is not written yet; complete it in agstate/state.py (notebook 02_append_and_budget.ipynb)"
    assert unwritten(stub) == catalog.gettext("{task}: {name}() is not written yet; complete it in {path} (notebook {notebook})") \
        .format(task="state.append", name="append", path="agstate/state.py", notebook="02_append_and_budget.ipynb") != stub
    report = {**_report(), "tasks": [{**task, "feedback": "x"} for task in _report()["tasks"]]}
    page = student_page_html("ana", report, {})
    assert html.escape(catalog.gettext("not implemented")) in page and "autograded points" not in page


def test_no_function_makes_the_translation_function_a_local():
    """``for path, _ in plans`` in a function of a module that imports ``_`` makes ``_`` that function's local: its
    every ``_("...")`` then raises UnboundLocalError, on the rare path that says a sentence (agstate-grade's Ctrl-C
    did). Ruff takes ``_`` for a throwaway name and says nothing, so the modules' trees are read here."""
    import ast

    shadowing = []
    for path in sorted((ROOT / "grader").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not any(isinstance(node, ast.ImportFrom) and any((alias.asname or alias.name) == "_" for alias in node.names)
                   for node in tree.body):
            continue
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.comprehension):
                shadowing += [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(function)
                              if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store)]
    assert not shadowing, f"_ assigned where it is the translation function: {sorted(set(shadowing))}"


@pytest.mark.part
def test_a_check_in_each_language_says_its_rules_in_it_and_keeps_the_reports_shape(tmp_path):
    """One task of a broken submission graded at a few examples in each language: the rule lines translated, the JSON
    keys, statuses, scores and counterexamples as in English (about 10 s)."""
    from support.corpus import Corpus

    from grader.engine.registry import TASKS

    submission = Corpus("state").build_submission("keep_max_zero_is_absent", tmp_path / "bug")
    reports = {}
    for lang in ("en", *LANGS):
        done = subprocess.run([sys.executable, "-m", "grader", str(submission), "--task", "state.keep_max", "--examples", "5",
                               "--seed", "3", "--json"], capture_output=True, text=True, timeout=300, cwd=ROOT,
                              env={**os.environ, "AGSTATE_LANG": lang})
        reports[lang] = json.loads(done.stdout)

    def shape(report):
        return [(sorted(task), task["status"], task["score"], task["counterexample"],
                 [(sorted(rule), rule["status"], rule.get("counterexample")) for rule in task["rules"]])
                for task in report["tasks"]]

    english = reports["en"]["tasks"][0]
    sentences = [rule.sentence for rule in TASKS["state.keep_max"].rules]
    assert [rule["rule"] for rule in english["rules"]] == sentences and english["status"] == "failed"
    assert english["feedback"].count("Rule: ") == 1
    for lang in LANGS:
        assert shape(reports[lang]) == shape(reports["en"]), lang
        said = reports[lang]["tasks"][0]
        assert [rule["rule"] for rule in said["rules"]] == [i18n.translation(lang).gettext(s) for s in sentences], lang
        assert i18n.translation(lang).gettext("Rule: {rule}.").split("{rule}")[0] in said["feedback"], lang


def _board_changed_current():
    from grader.parts.board.checks import expect_pure

    expect_pure({"current_changed": True, "update_changed": False}, None, {"type": "remove", "from_column": "a"})


def _events_not_an_event():
    from grader.parts.events.checks import expect_event

    expect_event({"seq": 1}, "t", 1, "a", {}, "append('t', 1, 'a', {})")


def _branches_wrong_keys():
    from grader.parts.branches.checks import expect_decided

    expect_decided({"case_id": "c"}, [], {"case": {}})


def _messages_not_a_list():
    from grader.parts.messages.checks import expect_history

    expect_history("budgeted(4)([], [])", 7, 4, None)


def _pauses_never_paused():
    from grader.parts.pauses.checks import judge_pauses

    judge_pauses("approval", {"invokes": [{"interrupts": []}]}, {"id": "r"}, None)


# One failing judgement of each part B-F, in one language each: the feedback is the catalog's sentence, formatted after.
@pytest.mark.parametrize("lang, judge, msgid, values", [
    ("es", _board_changed_current, "{call} changed its argument current; build a new board (model_copy(deep=True)) instead",
     {"call": "board_reducer(None, {'from_column': 'a', 'type': 'remove'})"}),
    ("zh_CN", _events_not_an_event, "{doing} returned {event}; expected an Event (task_id, seq, type, payload, ts)",
     {"doing": "append('t', 1, 'a', {})", "event": "{'seq': 1}"}),
    ("ru", _branches_wrong_keys, "{text} returned the keys {keys}; expected exactly {OUTPUT_KEYS}", None),
    ("es", _messages_not_a_list, "{what} gave {got}; expected a list of messages", {"what": "budgeted(4)([], [])", "got": "7"}),
    ("zh_CN", _pauses_never_paused, "{what}: the run never paused; it must ask the person with interrupt(request) before paying",
     {"what": "approval"}),
], ids=["board", "events", "branches", "messages", "pauses"])
def test_each_parts_feedback_comes_out_in_the_learners_language(no_language, monkeypatch, lang, judge, msgid, values):
    from grader.engine.checking import Failure

    said = {}
    for shown in ("en", lang):
        monkeypatch.setenv("AGSTATE_LANG", shown)
        with pytest.raises(Failure) as failed:
            judge()
        said[shown] = failed.value.feedback
    translated = i18n.translation(lang).gettext(msgid)
    assert translated != msgid
    if values is None:  # the values as English shows them: the translation's frame around the same values
        frame = [part for part in re.split(r"\{\w+\}", msgid) if part.strip()]
        assert all(part in said["en"] for part in frame)
        assert not any(part in said[lang] for part in frame if len(part) > 12), said[lang]
        assert said[lang].startswith("build_refund_graph(effects).invoke(") and said[lang] != said["en"]
    else:
        assert said["en"] == msgid.format(**values)
        assert said[lang] == translated.format(**values)


def test_an_exceptions_place_is_said_in_the_language_and_read_back_into_english(no_language, monkeypatch):
    """``Raised.sentence()`` frames where the learner's code raised in the learner's language (the type and message,
    the file and code, as they are); ``i18n.english`` reads a formatted feedback, a sentence nested in it too, back
    into the English it translates, and leaves English and unknown text alone."""
    from grader.wire import Raised

    raised = Raised("KeyError", ("KeyError",), "'x'", {"file": "agstate/state.py", "line": 12, "code": "return d['x']"})
    bare = Raised("KeyError", ("KeyError",), "'x'", {"file": "agstate/state.py", "line": 12})
    english = "KeyError: 'x' (at agstate/state.py, line 12: return d['x'])"
    assert raised.sentence() == english and bare.sentence() == "KeyError: 'x' (at agstate/state.py, line 12)"
    assert Raised("KeyError", ("KeyError",), "'x'").sentence() == "KeyError: 'x'"
    feedback = "{call} raised {error}"
    for lang in LANGS:
        monkeypatch.setenv("AGSTATE_LANG", lang)
        said = raised.sentence()
        assert said != english and said.startswith("KeyError: 'x'") and "agstate/state.py" in said and "12" in said
        assert "return d['x']" in said
        whole = _(feedback).format(call="get(d)", error=said)
        assert whole != f"get(d) raised {english}"
        assert i18n.english(whole) == f"get(d) raised {english}"
    assert i18n.english(f"get(d) raised {english}") == f"get(d) raised {english}"
    assert i18n.english("not a sentence of the grader's") == "not a sentence of the grader's"


def test_a_sentence_of_the_learners_process_crosses_as_data_and_is_said_here_in_the_language(no_language, monkeypatch):
    """The learner's process loads no catalog: a sentence of the grader's it says (a handle it does not hold, a name
    the module lacks) is made there in English and sent with its template and values, and the grading side says it in
    the learner's language; English, and a template the grader never wrote (the learner's process is the learner's
    code's to rewrite), stay as sent. How a crash ended is said here too. (Well under 1 s: no learner process.)"""
    from grader import wire
    from grader.sandbox.limits import Limits
    from grader.sandbox.session import _how

    sent = wire.loads(wire.dumps(wire.encode(wire.Raised.of(wire.saying(LookupError, wire.NO_HANDLE, handle="7")))))
    raised = wire.decode(sent)
    english = "LookupError: the grading side named handle 7, which this process does not hold"
    forged = wire.Raised("ValueError", ("ValueError",), "mine", said={"template": "{x}", "values": {"x": "theirs"}})
    ended = {"signal": "SIGKILL", "memory_limit": True, "process_limit": True}
    crash = "killed by signal SIGKILL; the task's processes reached their memory limit of 512 MB together; " \
            "the task reached its limit of 64 processes"
    assert raised.sentence() == english and raised == wire.Raised("LookupError", raised.mro, english.split(": ", 1)[1])
    assert _how(ended, Limits(1.0, memory_bytes=512 * 2**20)) == crash
    for lang in LANGS:
        monkeypatch.setenv("AGSTATE_LANG", lang)
        catalog = i18n.translation(lang)
        said = catalog.gettext(wire.NO_HANDLE).format(handle="7")
        assert said != english.split(": ", 1)[1] and raised.sentence() == f"LookupError: {said}" and said in repr(raised)
        assert raised.message == english.split(": ", 1)[1]  # the data a rule reads stays as raised
        assert forged.sentence() == "ValueError: mine"
        assert wire.translated({"template": wire.NO_NAME, "values": {"module": "state"}}, "as sent") == "as sent"
        how = _how(ended, Limits(1.0, memory_bytes=512 * 2**20))
        assert how.startswith(catalog.gettext("killed by signal {signal}").format(signal="SIGKILL")) and "512" in how
        assert i18n.english(how) == crash


@pytest.mark.part
def test_a_name_the_learners_module_lacks_is_said_in_the_learners_language(no_language, make_submission, monkeypatch):
    """The learner's process finds the name missing and says so as data; the report says it in AGSTATE_LANG, and in
    English exactly as before. (About 2 s: one task graded twice, at 1 example.)"""
    from grader.engine.runner import grade_submission

    path = make_submission(edits=[("class NaiveState(TypedDict):", "class SimpleState(TypedDict):")])
    said = {}
    for lang in ("en", "es"):
        monkeypatch.setenv("AGSTATE_LANG", lang)
        said[lang] = grade_submission(str(path), ["state.overwrite"], 1)["tasks"][0]["feedback"]
    assert said["en"].startswith("agstate/state.py has no 'NaiveState': define it as the spec says (see the module's "
                                 "docstrings). Rule: ")
    assert said["es"].startswith("agstate/state.py no tiene 'NaiveState': defínelo como dice la especificación (mira los "
                                 "docstrings del módulo)")


def test_what_a_reading_of_the_source_finds_is_said_in_the_language(no_language, monkeypatch, tmp_path):
    """``grader.sandbox.reach`` reads the learner's source on the grading side: its findings are said in the learner's
    language, the code they name as written. (Well under 1 s.)"""
    from grader.sandbox.reach import findings

    (tmp_path / "state.py").write_text("import signal\n")
    english = "agstate/state.py, line 1: imports signal, which the grader does not allow in a lab module"
    assert [found.sentence() for found in findings(tmp_path, "state")] == [english]
    monkeypatch.setenv("AGSTATE_LANG", "ru")
    assert [found.sentence() for found in findings(tmp_path, "state")] == [
        "agstate/state.py, строка 1: импортирует signal, что грейдер не разрешает в модуле лабораторной работы"]
