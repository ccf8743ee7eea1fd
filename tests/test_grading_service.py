"""The grading service (grader/service/): what it takes, how often, and the grade it gives, without a hub.

The hub's part, who the caller is, is stood in for here by a header naming
the student (``_Handler.get_current_user`` patched); tests/test_hub_service.py
runs the service under a real JupyterHub, with the students' real tokens.
"""

import asyncio
import json
import threading
from pathlib import Path

import pytest
import requests
from conftest import ROOT, SOLUTIONS
from lab_server import free_port
from mutants.state_mutants import MUTANTS, mutant_source

from grader.reports.students import student_seed
from grader.service import app as service
from grader.service.limits import StudentLimits
from grader.service.upload import MAX_BYTES, MAX_FILES, UploadError, digest, parse_upload, write_package

pytestmark = pytest.mark.unit

PRACTICE_SEED = 4242
STATE = (SOLUTIONS / "agstate" / "state.py").read_text()
BUG = mutant_source(next(m for m in MUTANTS if m.name == "keep_max_zero_is_absent"))


def _package(state: str) -> dict[str, str]:
    """The learner's agstate/ (the provided helpers and the stubs) with ``state`` as state.py, as check() sends it."""
    files = {path.name: path.read_text() for path in sorted((ROOT / "agstate").glob("*.py"))}
    return {**files, "state.py": state}


def _body(files, target=None) -> bytes:
    return json.dumps({"files": files, "target": target}).encode()


@pytest.mark.parametrize("name", ["../state.py", "/etc/passwd.py", "state.txt", "a/../../b.py", "a b.py", "état.py",
                                  "a/b/c/d.py", "", ".py", "__pycache__/x.pyc"])
def test_a_file_name_outside_the_package_is_refused_and_named(name):
    with pytest.raises(UploadError) as refused:
        parse_upload(_body({name: "x = 1\n"}))
    assert repr(name) in str(refused.value)


@pytest.mark.parametrize("body, says", [
    (b"not json", "not JSON"), (b"[]", '"files"'), (json.dumps({"files": {"state.py": 1}}).encode(), "must be text"),
    (json.dumps({"files": {}, "target": 3}).encode(), '"target"'),
    (_body({f"m{i}.py": "" for i in range(MAX_FILES + 1)}), f"at most {MAX_FILES}"),
    (_body({"a.py": "x" * (MAX_BYTES // 2), "b.py": "é" * (MAX_BYTES // 4 + 1)}), f"at most {MAX_BYTES:,}"),
])
def test_a_malformed_or_oversized_request_is_refused_with_its_reason(body, says):
    with pytest.raises(UploadError, match=says):
        parse_upload(body)


def test_the_package_is_written_as_sent_and_nothing_else(tmp_path):
    files, target = parse_upload(_body({"state.py": STATE, "helpers/text.py": "\udcff lone surrogate"}, "state"))
    assert target == "state"
    write_package(files, tmp_path)
    assert (tmp_path / "agstate" / "state.py").read_text() == STATE
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "agstate", "agstate/helpers", "agstate/helpers/text.py", "agstate/state.py"]
    assert digest(files) == digest(dict(reversed(files.items())))  # the order sent does not change it
    assert digest(files) != digest({**files, "state.py": STATE + "\n"})


def test_a_student_has_one_check_at_a_time_and_a_few_a_minute():
    now = [100.0]
    limits = StudentLimits(per_minute=3, clock=lambda: now[0])
    assert limits.refusal("ana") is None
    assert limits.refusal("ana") == ("a check of yours is still running: wait for its result", 5)
    assert limits.refusal("ben") is None  # another student is not held up
    limits.done("ana")
    for _ in range(2):
        now[0] += 10
        assert limits.refusal("ana") is None
        limits.done("ana")
    now[0] += 10  # three started in the last 30 s
    assert limits.refusal("ana") == ("you started 3 checks in the last minute (at most 3)", 30)
    now[0] += 30  # the first is a minute old
    assert limits.refusal("ana") is None


class _Running:
    """The service's app on a port of its own, in a thread; a request names its student in X-Test-Student."""

    def __init__(self, tmp_path: Path, **overrides):
        settings = service.Settings(practice_seed=PRACTICE_SEED, parts=["state"], examples=10, timeout=60.0, jobs=2,
                                    per_minute=3, log=tmp_path / "checks.jsonl", work=tmp_path / "work")
        for key, value in overrides.items():
            setattr(settings, key, value)
        service.clear_work(settings.work)
        self.port, self.settings = free_port(), settings
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve():
            asyncio.set_event_loop(self.loop)
            service.make_app(service.Checks(settings), "/services/grader/").listen(self.port, "127.0.0.1")
            self.loop.call_soon(ready.set)
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        ready.wait(10)

    def post(self, student, files, target=None):
        return requests.post(f"http://127.0.0.1:{self.port}/services/grader/api/check", data=_body(files, target),
                             headers={"X-Test-Student": student}, timeout=300)

    def results(self, student):
        return requests.get(f"http://127.0.0.1:{self.port}/services/grader/api/results",
                            headers={"X-Test-Student": student}, timeout=30)

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def running(tmp_path, monkeypatch):
    def as_the_header_says(handler):
        name = handler.request.headers.get("X-Test-Student")
        return {"kind": "user", "name": name} if name else None

    monkeypatch.setattr(service._Handler, "get_current_user", as_the_header_says)
    running = _Running(tmp_path)
    yield running
    running.close()


@pytest.mark.part
def test_a_check_is_graded_with_the_students_practice_seed_and_logged(running):
    passed = running.post("ana", _package(STATE), "state.keep_max")
    assert passed.status_code == 200, passed.text
    report = passed.json()
    assert report["seed"] == student_seed(PRACTICE_SEED, "ana") and report["submission"] == "ana"
    assert [(t["id"], t["status"]) for t in report["tasks"]] == [("state.keep_max", "passed")]
    failing = running.post("ben", _package(BUG), "state.keep_max").json()
    assert failing["seed"] == student_seed(PRACTICE_SEED, "ben") != report["seed"]
    assert failing["tasks"][0]["status"] == "failed" and "keep_max(0," in failing["tasks"][0]["feedback"]
    # Each reads their own checks only.
    mine = running.results("ana").json()["results"]
    assert [(r["student"], r["outcome"], r["score"]) for r in mine] == [("ana", "graded", report["score"])]
    assert mine[0]["digest"] == digest(_package(STATE))
    assert running.results("nobody-yet").json() == {"results": []}
    assert not list(running.settings.work.iterdir())  # each check's folder is gone with it


@pytest.mark.part
def test_refusals_are_json_with_a_reason_and_cost_no_grading(running):
    anonymous = requests.post(f"http://127.0.0.1:{running.port}/services/grader/api/check", data=_body({}), timeout=30)
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
