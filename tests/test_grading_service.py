"""The grading service (grader/service/): what it takes, how often, and the grade it gives, without a hub.

The hub's part, who the caller is, is stood in for here by a header naming
the student (``_Handler.hub_user`` patched); tests/test_hub_course.py
runs the service under a real JupyterHub, with the students' real tokens.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests
from support.corpus import Corpus
from support.lab_server import free_port
from support.paths import ROOT, SOLUTIONS
from support.service_in_thread import ServiceInThread, settings

from grader.catalog import TASKS
from grader.i18n import translation
from grader.package_files import MAX_BYTES, MAX_FILES, MAX_PART
from grader.service import app as service
from grader.service.app import practice_seed
from grader.service.quota import StudentLimits
from grader.service.upload import UploadError, digest, parse_upload, write_package

pytestmark = pytest.mark.unit

PRACTICE_SECRET = "practice-secret-of-the-tests"
STATE = (SOLUTIONS / "agstate" / "state.py").read_text()
BUG = Corpus("state").mutant_source("keep_max_zero_is_absent")


def _package(state: str) -> dict[str, str]:
    """The learner's agstate/ (the provided helpers and the stubs) with ``state`` as state.py, as check() sends it."""
    files = {path.name: path.read_text() for path in sorted((ROOT / "agstate").glob("*.py"))}
    return {**files, "state.py": state}


def _body(files, target=None) -> bytes:
    return json.dumps({"files": files, "target": target}).encode()


@pytest.mark.parametrize("name", ["../state.py", "/etc/passwd.py", "state.txt", "a/../../b.py", "a b.py", "état.py",
                                  "a/b/c/d.py", "", ".py", "__pycache__/x.pyc", "state-Copy1.py",
                                  ".ipynb_checkpoints/state-checkpoint.py", "x" * (MAX_PART + 1) + ".py"])
def test_a_file_name_outside_the_package_is_refused_and_named(name):
    with pytest.raises(UploadError) as refused:
        parse_upload(_body({name: "x = 1\n"}))
    assert repr(name)[:40] in str(refused.value) and len(str(refused.value)) < 300  # named, and not echoed whole


@pytest.mark.parametrize("body, says", [
    (b"not json", "not JSON"), (b"[]", '"files"'), (json.dumps({"files": {"state.py": 1}}).encode(), "must be text"),
    (json.dumps({"files": {}, "target": 3}).encode(), '"target"'),
    (_body({f"m{i}.py": "" for i in range(MAX_FILES + 1)}), f"at most {MAX_FILES}"),
    (_body({"a.py": "x" * (MAX_BYTES // 2), "b.py": "é" * (MAX_BYTES // 4 + 1)}), f"at most {MAX_BYTES:,}"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deep"),  # a RecursionError in the parser, not a 500
    (json.dumps({"files": {}, "padding": [[]] * 1000}).encode(), "and nothing else"),
    (json.dumps({"files": {}, "lang": "fr"}).encode(), '"lang" must be one of en, es, zh_CN, ru'),  # none the grader has
    (json.dumps({"files": {}, "lang": "es_ES.UTF-8"}).encode(), '"lang"'),  # its own name, not a locale's
    (_body({"state.py": "\ud800"}), "must be text"),  # a lone surrogate no file's bytes give
])
def test_a_malformed_or_oversized_request_is_refused_with_its_reason(body, says):
    with pytest.raises(UploadError, match=says) as refused:
        parse_upload(body)
    assert all(refused.value.sentence.said_in(lang) != str(refused.value) for lang in ("es", "zh_CN", "ru"))  # translated


def test_the_package_is_written_as_sent_and_nothing_else(tmp_path):
    files, target, lang = parse_upload(_body({"state.py": STATE, "helpers/text.py": "\udcff not UTF-8"}, "state"))
    assert target == "state" and lang is None  # a kit older than the translations sends none: the service's language
    write_package(files, tmp_path)
    assert (tmp_path / "agstate" / "state.py").read_text() == STATE
    assert (tmp_path / "agstate" / "helpers" / "text.py").read_bytes() == b"\xff not UTF-8"  # the student's own byte
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "agstate", "agstate/helpers", "agstate/helpers/text.py", "agstate/state.py"]
    assert digest(files) == digest(dict(reversed(files.items())))  # the order sent does not change it
    assert digest(files) != digest({**files, "state.py": (STATE + "\n").encode()})


def test_a_student_has_one_check_at_a_time_and_a_few_a_minute():
    now = [100.0]
    limits = StudentLimits(per_minute=3, clock=lambda: now[0])
    assert limits.refusal("ana") is None
    said, retry = limits.refusal("ana")
    assert (str(said), retry) == ("a check of yours is still running: wait for its result", 5)
    assert limits.refusal("ben") is None  # another student is not held up
    limits.done("ana")
    for _ in range(2):
        now[0] += 10
        assert limits.refusal("ana") is None
        limits.done("ana")
    now[0] += 10  # three started in the last 30 s
    said, retry = limits.refusal("ana")
    assert (str(said), retry) == ("you started 3 checks in the last minute (at most 3)", 30)
    now[0] += 30  # the first is a minute old
    assert limits.refusal("ana") is None


def _serve(tmp_path, **overrides) -> ServiceInThread:  # its warm grader starts at its first check
    return ServiceInThread(settings(tmp_path, **{"practice_secret": PRACTICE_SECRET, "examples": 10, "timeout": 60.0,
                                                 **overrides}))


@pytest.fixture
def running(tmp_path):
    running = _serve(tmp_path)
    yield running
    running.close()


@pytest.mark.part
def test_a_check_is_graded_with_the_students_practice_seed_and_logged(running):
    passed = running.post("ana", _package(STATE), "state.keep_max")
    assert passed.status_code == 200, passed.text
    report = passed.json()
    assert report["seed"] == practice_seed(PRACTICE_SECRET, "ana") and report["submission"] == "ana"
    assert [(t["id"], t["status"]) for t in report["tasks"]] == [("state.keep_max", "passed")]
    failing = running.post("ben", _package(BUG), "state.keep_max").json()
    assert failing["seed"] == practice_seed(PRACTICE_SECRET, "ben") != report["seed"]
    assert failing["tasks"][0]["status"] == "failed" and "keep_max(0," in failing["tasks"][0]["feedback"]
    # Each reads their own checks only.
    mine = running.results("ana").json()["results"]
    assert [(r["outcome"], r["score"]) for r in mine] == [("graded", report["score"])]
    assert mine[0]["digest"] == digest({name: text.encode() for name, text in _package(STATE).items()})
    assert running.results("nobody-yet").json() == {"results": []}
    assert not list(running.settings.work.glob("check-*"))  # each check's folder is gone with it


@pytest.mark.part
def test_a_check_is_graded_in_the_language_the_student_sends(running):
    from grader.engine.registry import TASKS
    from grader.i18n import translation

    english = running.post("ana", _package(BUG), "state.keep_max").json()
    russian = running.post("ana", _package(BUG), "state.keep_max", lang="ru").json()  # the warm grader's fork: ru

    def shape(report):  # the keys, statuses and scores: never the language's
        return [(sorted(task), task["status"], task["score"], [(sorted(rule), rule["status"]) for rule in task["rules"]])
                for task in report["tasks"]]

    assert shape(russian) == shape(english) and russian["seed"] == english["seed"]
    sentences = [rule.sentence for rule in TASKS["state.keep_max"].rules]
    assert [rule["rule"] for rule in english["tasks"][0]["rules"]] == sentences
    assert [rule["rule"] for rule in russian["tasks"][0]["rules"]] == [translation("ru").gettext(s) for s in sentences]
    assert "Правило: " in russian["tasks"][0]["feedback"]
    assert running.post("ana", _package(BUG), "state.keep_max", lang="xx").status_code == 400


@pytest.mark.part
def test_a_refusal_is_said_in_the_language_the_student_reads_and_logged_in_english(running):
    """check() sends its language as Accept-Language: each refusal is said in it (a language the lab has not:
    English); the limits' sentences go in the log in English, the instructor's. (Under 1 s: nothing graded.)"""
    english = "the hub does not know this token, or it may not use the grading service"
    for header, lang in [("ru", "ru"), ("zh-CN,zh;q=0.9", "zh_CN"), ("es-ES", "es"), ("fr", "en"), (None, "en")]:
        said = requests.post(running.api + "check", data=_body({}), timeout=30,
                             headers={"Accept-Language": header} if header else {}).json()["error"]
        assert said == translation(lang).gettext(english) and (said == english) == (lang == "en"), (header, said)
    for _ in range(3):
        assert running.post("ana", {}, "state.nothing", lang="es").status_code == 400  # refused, and counted
    limited = running.post("ana", {}, lang="es").json()["error"]
    assert limited.startswith("iniciaste 3 comprobaciones en el último minuto (como máximo 3); vuelve a intentarlo en ")
    logged = [json.loads(line) for line in running.settings.log.read_text().splitlines()]
    assert [line.get("why") for line in logged if line["outcome"] == "refused"] == [
        "you started 3 checks in the last minute (at most 3)"]


def test_a_bad_request_is_refused_in_the_language_the_student_reads_and_logged_in_english(running):
    """An upload's refusal (400) carries its sentence and values: said in the request's Accept-Language, the log's
    reason in English, the instructor's. (About 1 s: nothing graded.)"""
    named = running.post("ana", {"state.txt": ""}, lang="es")
    assert named.status_code == 400 and named.json()["error"] == (
        "'state.txt': solo se envían los archivos Python del paquete (una ruta que termina en .py)")
    unknown = running.post("ben", {}, "state.nothing", lang="ru")
    assert unknown.status_code == 400 and unknown.json()["error"] == "неизвестное задание или часть 'state.nothing'"
    logged = [json.loads(line) for line in running.settings.log.read_text().splitlines()]
    assert [(line["student"], line["why"]) for line in logged if line["outcome"] == "bad request"] == [
        ("ana", "'state.txt': only the package's Python files are sent (a path ending in .py)"),
        ("ben", "unknown task or part 'state.nothing'")]


def test_refusals_are_json_with_a_reason_and_cost_no_grading(running):
    anonymous = requests.post(running.api + "check", data=_body({}), timeout=30)
    assert anonymous.status_code == 403 and "token" in anonymous.json()["error"]
    elsewhere = running.post("ana", {"board.py": ""}, "board.move")
    assert elsewhere.status_code == 400 and "not graded in this course" in elsewhere.json()["error"]
    unknown = running.post("ana", {}, "state.nothing")
    assert unknown.status_code == 400 and "unknown task or part 'state.nothing'" in unknown.json()["error"]
    named = running.post("ana", {"ünïcode name.py": ""})
    assert named.status_code == 400 and "'ünïcode name.py'" in named.json()["error"]
    limited = running.post("ana", {})  # the fourth in a minute
    assert limited.status_code == 429 and limited.headers["Retry-After"].isdigit()
    assert "you started 3 checks in the last minute (at most 3)" in limited.json()["error"]
    assert running.post("ben", _package(STATE), "state.keep_max").status_code == 200
    outcomes = [json.loads(line)["outcome"] for line in running.settings.log.read_text().splitlines()]
    assert outcomes == ["bad request"] * 3 + ["refused", "graded"]  # every request of a known student


HANGS = STATE.replace("def keep_max(", "def keep_max(*_):\n    while True:\n        pass\n\n\ndef _replaced(", 1)


def _left_running(work: Path) -> list[str]:
    """The command lines of processes still running on a check's folder under ``work``."""
    found = []
    for process in Path("/proc").glob("[0-9]*"):
        try:
            command = (process / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(work) in command:
            found.append(command)
    return found


@pytest.mark.part
def test_a_check_over_the_services_limit_is_stopped_whole_and_said(tmp_path):
    running = _serve(tmp_path, check_limit=4.0)  # the task's own timeout is 60 s: the service stops it
    try:
        over = running.post("ana", _package(HANGS), "state.keep_max")
        assert over.status_code == 422 and "past the service's limit of 4 s" in over.json()["error"]
        assert _left_running(running.settings.work) == [] and not list(running.settings.work.glob("check-*"))
        # The slot is free again: a check that finishes. Its limit is raised first, read at each check (a loaded
        # machine once took a cold reference check past 4 s in CI: its time is not this test's subject).
        running.settings.check_limit = 120.0
        assert running.post("ana", _package(STATE), "state.keep_max").status_code == 200
    finally:
        running.close()
    assert [r["outcome"] for r in running.checks.results("ana")] == ["over time", "graded"]


def test_a_student_gone_while_the_body_is_read_starts_no_grading(tmp_path, monkeypatch):
    parsed = threading.Event()

    def slow_parse(body):  # a big body's parse, long enough for the client to give up during it
        time.sleep(1.5)
        parsed.set()
        return service.parse_upload.__wrapped__(body)

    slow_parse.__wrapped__ = service.parse_upload
    monkeypatch.setattr(service, "parse_upload", slow_parse)
    running = _serve(tmp_path)
    try:
        with pytest.raises(requests.ReadTimeout):
            running.post("ana", _package(STATE), "state.keep_max", timeout=0.5)
        assert parsed.wait(10)
        for _ in range(100):  # a grading started after the parse would end in a "graded" line
            if running.checks.results("ana"):
                break
            time.sleep(0.1)
        assert [r["outcome"] for r in running.checks.results("ana")] == ["abandoned"]
        assert _left_running(running.settings.work) == []
    finally:
        running.close()


@pytest.mark.part
def test_a_students_code_reads_neither_the_secret_nor_the_log(tmp_path, monkeypatch):
    monkeypatch.setenv("AGSTATE_PRACTICE_SECRET", PRACTICE_SECRET)  # as the hub gives it to the service
    monkeypatch.setenv("AGSTATE_INTEGRITY", "off")  # the tripwires would stop it first: this is the sandbox's proof
    running = _serve(tmp_path)
    (tmp_path / "checks.jsonl").write_text('{"student": "ben", "outcome": "graded", "score": 1.0}\n')
    spy = ("import os\nFOUND = []\nfor path in [f'/proc/{p}/environ' for p in os.listdir('/proc') if p.isdigit()] + "
           f"[{str(tmp_path / 'checks.jsonl')!r}]:\n"
           "    try:\n        FOUND.append(open(path, 'rb').read().decode('latin-1'))\n    except OSError:\n        pass\n"
           "def keep_max(*_):\n    raise RuntimeError('LEAK:' + ' | '.join(FOUND)[-3000:])\n\n\ndef _replaced(")
    try:
        answer = running.post("ana", _package(STATE.replace("def keep_max(", spy, 1)), "state.keep_max")
    finally:
        running.close()
    feedback = answer.json()["tasks"][0]["feedback"]
    assert "LEAK:" in feedback  # its code ran, and found
    assert PRACTICE_SECRET not in feedback and '"ben"' not in feedback  # neither the secret nor another's line


@pytest.mark.part
def test_a_student_who_goes_away_takes_the_grading_along(tmp_path):
    running = _serve(tmp_path, jobs=1)
    try:
        with pytest.raises(requests.ReadTimeout):  # the kernel interrupted: the connection closes
            running.post("ana", _package(HANGS), "state.keep_max", timeout=3)
        for _ in range(100):
            if [r["outcome"] for r in running.checks.results("ana")] == ["abandoned"]:
                break
            time.sleep(0.1)
        assert [r["outcome"] for r in running.checks.results("ana")] == ["abandoned"]
        assert _left_running(running.settings.work) == []
        assert running.post("ben", _package(STATE), "state.keep_max").status_code == 200  # the one slot is free
    finally:
        running.close()


@pytest.mark.part
def test_a_student_reads_their_outcomes_and_never_the_graders_messages(tmp_path):
    log = tmp_path / "checks.jsonl"
    earlier = {"time": 1.0, "student": "ana", "outcome": "graded", "score": 3.0, "detail": "the instructor's"}
    log.write_text(json.dumps(earlier) + "\n" + '{"time": 2.0, "student": "ana", "outc')  # a crash cut the last line
    running = _serve(tmp_path, examples=-1)  # agstate-grade refuses it: the grader fails, not the student
    try:
        failed = running.post("ana", _package(STATE), "state.keep_max")
        assert failed.status_code == 500 and "not your code's fault" in failed.json()["error"]
        results = running.results("ana").json()["results"]
    finally:
        running.close()
    assert [(r["outcome"], "detail" in r) for r in results] == [("graded", False), ("grader failure", False)]
    logged = json.loads(log.read_text().splitlines()[-1])
    assert logged["outcome"] == "grader failure" and "--examples" in logged["detail"]  # the instructor's to read


def test_a_body_that_never_comes_whole_gives_the_students_turn_back(tmp_path):
    import socket

    running = _serve(tmp_path)
    try:
        with socket.create_connection(("127.0.0.1", running.port)) as half:
            half.sendall(b"POST /services/grader/api/check HTTP/1.1\r\nHost: x\r\nX-Test-Student: ana\r\n"
                         b"Content-Length: 1000\r\n\r\n{\"files\": ")
            time.sleep(0.5)  # admitted: prepare has run
        for _ in range(50):
            again = running.post("ana", {}, "board.move")
            if again.status_code != 429:
                break
            time.sleep(0.1)
        assert again.status_code == 400 and "not graded in this course" in again.json()["error"]
    finally:
        running.close()


def test_bodies_cut_short_leave_no_handler_behind(tmp_path):
    import gc
    import socket

    running = _serve(tmp_path)
    try:
        for student in ("ana", None):  # an admitted student's, and a stranger's
            for _ in range(20):
                with socket.create_connection(("127.0.0.1", running.port)) as half:
                    who = f"X-Test-Student: {student}\r\n".encode() if student else b""
                    half.sendall(b"POST /services/grader/api/check HTTP/1.1\r\nHost: x\r\n" + who +
                                 b"Content-Length: 100000\r\n\r\n{\"files\": ")
                    time.sleep(0.05)
        for _ in range(100):
            gc.collect()
            alive = sum(isinstance(held, service.CheckHandler) and held.checks is running.checks  # a count: no
                        for held in gc.get_objects())  # reference kept; this service's only
            if not alive:
                break
            time.sleep(0.1)
        assert alive == 0
    finally:
        running.close()


@pytest.mark.part
def test_an_empty_package_is_the_students_to_hear_about(running):
    empty = running.post("ana", {}, "state.keep_max")
    assert empty.status_code == 200, empty.text  # not "the grading service could not grade"
    [task] = empty.json()["tasks"]
    assert task["score"] == 0 and "the submission has no agstate/__init__.py" in task["feedback"]


def test_only_a_check_takes_a_big_body(tmp_path):
    running = _serve(tmp_path)
    try:
        try:  # refused on its Content-Length, before it is held, whoever sends it: tornado answers 400 and closes,
            # and the client may meet the close before the answer
            refused = requests.post(running.api + "health", data=b"x" * (service.SMALL_BODY + 1), timeout=30).status_code
        except requests.RequestException:
            refused = "closed"
        assert refused in (400, "closed")
        empty = running.post("ana", {}, "board.move")
        assert empty.status_code == 400
    finally:
        running.close()


def test_a_loop_of_refused_checks_writes_a_line_a_minute(tmp_path):
    checks = service.Checks(settings(tmp_path))
    for _ in range(1000):
        checks.record_refusal("ana", "you started 1 checks in the last minute (at most 1)")
    checks.record_refusal("ben", "a check of yours is still running: wait for its result")
    assert [(r["student"], r["refused"]) for r in map(json.loads, checks.settings.log.read_text().splitlines())] == [
        ("ana", 1), ("ben", 1)]


def test_a_roster_has_each_students_practice_examples_drawn_in_its_order_and_stops_with_the_service(tmp_path):
    """``--roster``: as the service starts, each student's practice seed is drawn for the course's tasks, one student
    after another (blank lines and repeats left out), and the drawing stops when the service closes. (Under 1 s: the
    warm grader is stood in for; the next test holds what a draw request draws.)"""
    import asyncio

    (tmp_path / "roster.txt").write_text("ana\n\nben\nana\n  cy  \n")
    checks = service.Checks(settings(tmp_path, roster=tmp_path / "roster.txt", parts=["state", "pauses"], examples=30))
    asked, release = [], asyncio.Event()

    class Graders:
        async def start(self):
            pass

        async def draw(self, seed, task_ids, examples):
            asked.append((seed, task_ids, examples))
            if len(asked) == 2:
                await release.wait()  # the service closes while the second student's examples are drawn
            return {"returncode": 0, "stdout": "", "stderr": ""}

        async def close(self):
            pass

    async def run():
        checks.graders = Graders()
        await checks.start()
        for _ in range(20):
            await asyncio.sleep(0)
        await checks.close()
        await asyncio.sleep(0)
        return checks._ahead.cancelled()

    assert asyncio.run(run())
    tasks = [task_id for task_id in TASKS if TASKS[task_id].part in ("state", "pauses")]
    assert asked == [(practice_seed(PRACTICE_SECRET, "ana"), tasks, 30), (practice_seed(PRACTICE_SECRET, "ben"), tasks, 30)]
    assert service.roster(tmp_path / "roster.txt") == ["ana", "ben", "cy"]


def test_a_roster_group_adds_its_members_then_those_whose_own_group_it_is(tmp_path, monkeypatch):
    """``--roster-group`` (hub-config gives the students' group): the group's members, then the accounts whose own
    group it is, after the file's students, each once."""
    import grp
    import pwd

    students = grp.struct_group(("agstate-students", "x", 4242, ["dora", "ana"]))
    accounts = [pwd.struct_passwd((name, "x", 5000 + n, gid, "", f"/home/{name}", "/bin/bash"))
                for n, (name, gid) in enumerate([("eve", 4242), ("root", 0), ("bo", 4242), ("dora", 4242)])]
    monkeypatch.setattr(service.grp, "getgrnam", lambda name: {"agstate-students": students}[name])
    monkeypatch.setattr(service.pwd, "getpwall", lambda: accounts)
    (tmp_path / "roster.txt").write_text("ana\nben\n")
    assert service.roster(tmp_path / "roster.txt", "agstate-students") == ["ana", "ben", "dora", "bo", "eve"]
    assert service.roster(None, "agstate-students") == ["dora", "ana", "bo", "eve"]


@pytest.mark.part
def test_a_draw_request_draws_every_example_a_check_at_that_seed_then_draws(tmp_path):
    """The warm grader's "draw" request (grader.warm.server): a check of the same task at that seed, graded after it
    in the same process, draws nothing more. (About 3 s: one task graded.)"""
    script = f"""
import json, sys
from grader.engine import bank
from grader.engine.runner import grade_submission
from grader.warm.server import _job
job, seeds = _job({{"draw": {{"seeds": [71], "tasks": ["state.keep_max"], "examples": None}}}})
assert seeds == [71] and job() == 0
drawn = len(bank.export())
report = grade_submission({str(SOLUTIONS)!r}, ["state.keep_max"], 71)
print(json.dumps({{"drawn": drawn, "then": sorted(bank.export()), "score": report["score"]}}))
"""
    done = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert found["drawn"] > 0 and found["score"] == TASKS["state.keep_max"].max_score, found
    assert found["then"] == [], found  # nothing drawn anew


@pytest.mark.part
def test_the_body_limit_is_the_files_own_bytes_however_json_escapes_them(tmp_path):
    running = _serve(tmp_path)
    control = "\x01" * (MAX_BYTES - 1000)  # six bytes each in JSON: a 6 MB body holding 1 MB of files
    try:
        read = running.post("ana", {"state.py": control}, "board.move")
        assert read.status_code == 400 and "not graded in this course" in read.json()["error"]  # read, then refused
        over = running.post("ana", {"state.py": control + "\x01" * 1001}, "state")
        assert over.status_code == 400 and f"at most {MAX_BYTES:,}" in over.json()["error"]
    finally:
        running.close()


@pytest.mark.parametrize("argv, environment, says", [
    (["--jobs", "0"], {"AGSTATE_PRACTICE_SECRET": PRACTICE_SECRET}, "must be more than 0"),
    (["--per-minute", "0"], {"AGSTATE_PRACTICE_SECRET": PRACTICE_SECRET}, "must be more than 0"),
    ([], {"AGSTATE_PRACTICE_SECRET": "4242"}, "at least 16 characters"),
    ([], {"AGSTATE_PRACTICE_SECRET": "ab" * 20}, "8 of them different"),
    ([], {}, "set AGSTATE_PRACTICE_SECRET"),
    (["--roster-group", "no-such-group-of-agstate"], {"AGSTATE_PRACTICE_SECRET": PRACTICE_SECRET}, "no Unix group named"),
])
def test_the_services_settings_are_checked_before_it_starts(argv, environment, says, monkeypatch, capsys):
    monkeypatch.delenv("AGSTATE_PRACTICE_SECRET", raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit):
        service.parse_settings(argv)
    assert says in capsys.readouterr().err


def test_the_services_folders_are_absolute_whatever_its_working_directory(tmp_path, monkeypatch):
    """The hub starts the service in its folder with the default relative --work and --log; its warm grader runs
    elsewhere, and a relative path there named no submission (a grader failure on every check)."""
    monkeypatch.setenv("AGSTATE_PRACTICE_SECRET", PRACTICE_SECRET)
    monkeypatch.chdir(tmp_path)
    settings = service.parse_settings([])
    assert (settings.work, settings.log) == (tmp_path / "checks-in-progress", tmp_path / "agstate-checks.jsonl")


def test_a_practice_seed_is_the_students_own_and_gives_no_secret_away():
    seeds = {practice_seed(PRACTICE_SECRET, name) for name in ("ana", "ben", "ana ", "Ana")}
    assert len(seeds) == 4 and all(0 <= seed < 2**31 for seed in seeds)
    assert practice_seed(PRACTICE_SECRET, "ana") == practice_seed(PRACTICE_SECRET, "ana")  # it repeats
    assert practice_seed(PRACTICE_SECRET + "x", "ana") != practice_seed(PRACTICE_SECRET, "ana")


@pytest.mark.part
def test_the_service_does_not_start_where_the_sandbox_cannot_run(tmp_path):
    started = subprocess.run([sys.executable, "-c", "import sys; from grader.service.app import main; sys.exit(main())",
                              "--work", str(tmp_path / "work")], capture_output=True, text=True, timeout=120,
                             env={**os.environ, "PATH": str(tmp_path), "AGSTATE_PRACTICE_SECRET": PRACTICE_SECRET})
    assert started.returncode == 2, started.stderr
    assert started.stderr.strip() == ("agstate-grading-service: refusing to start, as it grades only in the sandbox: "
                                      "bubblewrap (bwrap) is not installed: install bubblewrap (Debian/Ubuntu: apt-get "
                                      "install bubblewrap; Fedora: dnf install bubblewrap)")
    assert not (tmp_path / "work").exists()


# The client side: check() in the course kit, against a stand-in for the service (http.server in a thread).

class _StandIn:
    """Answers each POST with the next (status, body) of ``answers``; keeps what it was sent."""

    def __init__(self, answers):
        import http.server

        self.answers, self.sent = list(answers), []
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                stand_in.sent.append((self.path, self.headers["Authorization"],
                                      json.loads(self.rfile.read(int(self.headers["Content-Length"])))))
                status, body = stand_in.answers.pop(0)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(body).encode())

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/services/agstate-grader/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def _workspace(tmp_path: Path) -> Path:
    package = tmp_path / "lab" / "agstate"
    (package / "__pycache__").mkdir(parents=True)
    (package / "state.py").write_text(STATE)
    (package / "__init__.py").write_text("")
    (package / "__pycache__" / "state.cpython-311.pyc").write_bytes(b"\0")
    (package / "elsewhere.py").symlink_to("/etc/hostname")  # a link stays home
    (package / ".ipynb_checkpoints").mkdir()  # JupyterLab's copies, and a copy of its own: no module, they stay home
    (package / ".ipynb_checkpoints" / "state-checkpoint.py").write_text(STATE)
    (package / "state-Copy1.py").write_text(STATE)
    return tmp_path / "lab"


def test_the_bytes_on_the_students_disk_are_the_bytes_graded(tmp_path):
    from grader.notebook.remote_check import package_files

    workspace = _workspace(tmp_path)
    latin = b"# caf\xe9, written in Latin-1\nx = 1\n"  # not UTF-8: the grader's own error to report, as it is
    (workspace / "agstate" / "notes.py").write_bytes(latin)
    sent = package_files(workspace)
    assert sorted(sent) == ["__init__.py", "notes.py", "state.py"]
    files, _target, _lang = parse_upload(json.dumps({"files": sent, "target": None}).encode("ascii"))
    write_package(files, tmp_path / "graded")
    assert (tmp_path / "graded" / "agstate" / "notes.py").read_bytes() == latin


def test_check_says_so_before_sending_more_than_the_service_takes(tmp_path):
    from grader.notebook import remote_check as client

    workspace = _workspace(tmp_path)
    (workspace / "agstate" / "data.py").write_text("x" * MAX_BYTES)
    with pytest.raises(client.ServiceRefusal, match=r"at most 64 files of 1,000,000 bytes: move what"):
        client.grade_on_service(f"http://127.0.0.1:{free_port()}/", workspace, None)


_REPORT = {"submission": "ana", "seed": 5, "score": 15.0, "max_score": 15.0, "sandbox": "bubblewrap",
           "tasks": [{"id": "state.keep_max", "score": 15.0, "max_score": 15.0, "status": "passed", "feedback": ""}]}


def test_check_sends_the_package_with_the_servers_token_and_shows_the_report(tmp_path, monkeypatch, capsys):
    from grader.notebook import check as notebook
    from grader.notebook.remote_check import package_files

    workspace = _workspace(tmp_path)
    assert sorted(package_files(workspace)) == ["__init__.py", "state.py"]
    stand_in = _StandIn([(200, _REPORT)])
    monkeypatch.setenv("AGSTATE_GRADING_SERVICE", stand_in.url.rstrip("/"))
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(workspace))
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "the-servers-token")
    monkeypatch.setenv("AGSTATE_LANG", "es")
    try:
        assert notebook.check("state.keep_max") == 15.0
    finally:
        stand_in.close()
    [(path, authorization, sent)] = stand_in.sent
    assert path == "/services/agstate-grader/api/check" and authorization == "token the-servers-token"
    assert sent == {"files": {"__init__.py": "", "state.py": STATE}, "target": "state.keep_max", "lang": "es"}
    assert "state.keep_max" in capsys.readouterr().out


def test_a_refusal_is_the_services_sentence_and_a_restart_is_waited_for(tmp_path, monkeypatch):
    from grader.notebook import remote_check as client

    workspace = _workspace(tmp_path)
    stand_in = _StandIn([(429, {"error": "a check of yours is still running: wait for its result; try again in 5 s"}),
                         (503, {}), (502, {}), (200, _REPORT)])
    waited = []
    try:
        with pytest.raises(client.ServiceRefusal, match="a check of yours is still running"):
            client.grade_on_service(stand_in.url, workspace, None, sleep=waited.append)
        assert client.grade_on_service(stand_in.url, workspace, None, sleep=waited.append) == _REPORT
    finally:
        stand_in.close()
    assert waited == [1.0, 2.0]  # the proxy's 503 and 502 while the hub restarts the service
    now = [0.0]

    def later(seconds):
        now[0] += seconds

    with pytest.raises(client.ServiceRefusal, match=r"does not answer .*tell your instructor"):
        client.grade_on_service(f"http://127.0.0.1:{free_port()}/", workspace, None, clock=lambda: now[0], sleep=later)
    assert now[0] > client.WAIT_FOR_SERVICE


def test_the_course_kit_without_a_service_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    from grader.notebook import check as notebook
    from grader.notebook import remote_check as client

    monkeypatch.delenv("AGSTATE_GRADING_SERVICE", raising=False)
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(_workspace(tmp_path)))
    monkeypatch.setattr(client, "has_local_grader", lambda: False)  # the course kit: no grader.engine
    assert notebook.check("state") is None
    assert capsys.readouterr().out.strip() == client.NO_SERVICE
    with pytest.raises(ValueError, match="unknown task or part"):
        notebook.check("state.nothing")


# Abuse: what any local account can do to the service's port with no token.

def _closed(connection) -> bool:
    """Whether the service has closed ``connection`` (its end read as EOF; nothing was ever sent on it)."""
    import socket

    connection.setblocking(False)
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


@pytest.mark.part
def test_a_student_checks_while_1100_idle_connections_are_held(tmp_path):
    # About 7 s: a service in a process of its own with 1,024 descriptors (the limit the attack found), its warm
    # grader, 1,100 connections opened and kept by this process, then one check.
    import resource
    import socket

    def few_descriptors():
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    chosen = {"practice_secret": PRACTICE_SECRET, "examples": 10, "timeout": 60.0, "max_unauthenticated": 50}
    served = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "service_in_thread.py"), str(tmp_path), json.dumps(chosen)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, preexec_fn=few_descriptors)
    idle = []
    try:
        port = json.loads(served.stdout.readline())["port"]
        for _ in range(1100):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=30))
        held = len(os.listdir(f"/proc/{served.pid}/fd"))
        answer = requests.post(f"http://127.0.0.1:{port}/services/grader/api/check", timeout=120,
                               data=_body(_package(STATE), "state.keep_max"), headers={"X-Test-Student": "ana"})
        assert answer.status_code == 200, answer.text
        assert [t["status"] for t in answer.json()["tasks"]] == ["passed"]
        still_open = [not _closed(connection) for connection in idle]
    finally:
        for connection in idle:
            connection.close()
        served.stdin.close()
        served.wait(60)
    assert held < 1024 - 100  # descriptors to spare: a stranger's flood takes at most its share of connections
    assert sum(still_open) <= 50 and still_open[-1]  # the newest strangers' kept, the older ones closed for them


# Run inside a network namespace of its own (so the rules touch nothing of the machine's), on the port of hub-course.md's
# example. Before the documented rules: a student who takes the port while the service is down (a restart) gets the
# hub's next request, a token with it; the service up, a student connects to it. After them: the same student is
# refused, the hub (root) still answered, and a student who takes the port gets nothing. Prints what each met, as JSON.
_BEHIND_THE_RULES = r"""
import json, socket, subprocess, sys, urllib.request
folder, service_script, commands = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
def as_student(code):  # an ordinary account, on the system's Python (the venv lives in root's home)
    return subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", code],
                            stdout=subprocess.PIPE, text=True)
CONNECT = ("import socket\ntry:\n    socket.create_connection(('127.0.0.1', 10101), 5).close(); print('open')\n"
           "except OSError as error:\n    print(type(error).__name__)")
SQUAT = ("import socket\nport = socket.create_server(('127.0.0.1', 10101)); print('listening', flush=True)\n"
         "port.settimeout(4)\ntry:\n    print(port.accept()[0].recv(1000).decode(errors='replace'))\n"
         "except OSError as error:\n    print(type(error).__name__)")
def squatted():
    squatter = as_student(SQUAT)
    assert squatter.stdout.readline() == "listening\n"
    try:  # the hub's proxy, forwarding a student's request
        with socket.create_connection(("127.0.0.1", 10101), 2) as proxy:
            proxy.sendall(b"GET /services/grader/api/health HTTP/1.1\r\nAuthorization: token a-students-token\r\n\r\n")
    except OSError:
        pass
    return squatter.communicate(timeout=30)[0].strip()
def hub():
    with urllib.request.urlopen("http://127.0.0.1:10101/services/grader/api/health", timeout=30) as answer:
        return answer.status
def serve():
    chosen = {"practice_secret": "practice-secret-of-the-tests", "port": 10101, "warm": False}
    served = subprocess.Popen([sys.executable, service_script, folder, json.dumps(chosen)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    served.stdout.readline()
    return served
met = {"squatter_before": squatted()}
served = serve()
met.update(student_before=as_student(CONNECT).communicate()[0].strip(), hub_before=hub())
for command in commands:
    subprocess.run(command, check=True)
met.update(student_after=as_student(CONNECT).communicate()[0].strip(), hub_after=hub())
served.stdin.close()
served.wait(60)
met["squatter_after"] = squatted()
print(json.dumps(met))
"""


def _documented_firewall() -> list[list[str]]:
    """The commands of hub-course.md's firewall rules, as an administrator types them, ``sudo`` left out (root runs
    them), and the service's account root (this test's service runs as root)."""
    page = (ROOT / "docs" / "instructor" / "hub-course.md").read_text()
    section = page.split("**Only the hub's proxy reaches it, and only the service answers.**", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [shlex.split(line, comments=True) for line in block.splitlines()]
    assert commands and all(command[:2] == ["sudo", "nft"] for command in commands), block
    assert sum(command.count("agstate-grading") for command in commands) == 1, block
    return [["root" if word == "agstate-grading" else word for word in command[1:]] for command in commands]


@pytest.mark.part
@pytest.mark.skipif(os.geteuid() != 0, reason="the documented rule is root's, as the hub's: run as root (CI does)")
def test_behind_the_documented_firewall_rules_only_the_hubs_proxy_reaches_the_service_and_only_it_answers(tmp_path):
    # About 6 s: a network namespace of its own (unshare), the service in a process of its own without its warm grader,
    # and a squatter's 4 s wait for a request that never comes.
    assert shutil.which("nft"), "nftables is missing: make firewall installs Debian's (make test does)"
    tmp_path.chmod(0o755)
    done = subprocess.run(["unshare", "--net", sys.executable, "-c", _BEHIND_THE_RULES, str(tmp_path),
                           str(ROOT / "tests" / "support" / "service_in_thread.py"), json.dumps(_documented_firewall())],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    met = json.loads(done.stdout.splitlines()[-1])
    assert "a-students-token" in met["squatter_before"]  # the threat: the port taken, the hub's requests are the taker's
    assert met["student_before"] == "open"  # on loopback, any account reaches the port: the rules are the wall
    assert met["student_after"] == "ConnectionRefusedError"
    assert met["hub_before"] == met["hub_after"] == 200  # the hub's proxy, root, still reaches the service
    assert met["squatter_after"] == "TimeoutError"  # the port taken, nothing comes: only the service's account answers


def test_a_request_whose_headers_do_not_come_in_time_is_closed(tmp_path):
    # About 1 s: a service with a 1 s header deadline, two connections waiting for it, no grading.
    import socket

    running = _serve(tmp_path, header_deadline=1.0)
    try:
        with socket.create_connection(("127.0.0.1", running.port)) as silent, \
                socket.create_connection(("127.0.0.1", running.port)) as dripping:
            started = time.monotonic()
            dripping.settimeout(0.2)
            while time.monotonic() - started < 5 and not _closed(dripping):  # a byte of the headers at a time
                try:
                    dripping.sendall(b"G")
                except OSError:
                    break
                time.sleep(0.2)
            dripped = time.monotonic() - started
            silent.settimeout(10)
            assert silent.recv(1) == b""
        assert 1.0 <= dripped < 3 and time.monotonic() - started < 3  # the deadline, not the data, ends them
        assert running.post("ana", {}, "board.move").status_code == 400  # and the service answers the next
    finally:
        running.close()
