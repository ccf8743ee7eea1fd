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
    return tmp_path / "lab"


_REPORT = {"submission": "ana", "seed": 5, "score": 15.0, "max_score": 15.0, "sandbox": "bubblewrap",
           "tasks": [{"id": "state.keep_max", "score": 15.0, "max_score": 15.0, "status": "passed", "feedback": ""}]}


def test_check_sends_the_package_with_the_servers_token_and_shows_the_report(tmp_path, monkeypatch, capsys):
    from grader.notebook import check as notebook
    from grader.notebook.service import package_files

    workspace = _workspace(tmp_path)
    assert sorted(package_files(workspace)) == ["__init__.py", "state.py"]
    stand_in = _StandIn([(200, _REPORT)])
    monkeypatch.setenv("AGSTATE_GRADING_SERVICE", stand_in.url.rstrip("/"))
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(workspace))
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "the-servers-token")
    try:
        assert notebook.check("state.keep_max") == 15.0
    finally:
        stand_in.close()
    [(path, authorization, sent)] = stand_in.sent
    assert path == "/services/agstate-grader/api/check" and authorization == "token the-servers-token"
    assert sent == {"files": {"__init__.py": "", "state.py": STATE}, "target": "state.keep_max"}
    assert "state.keep_max" in capsys.readouterr().out


def test_a_refusal_is_the_services_sentence_and_a_restart_is_waited_for(tmp_path, monkeypatch):
    from grader.notebook import service as client

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
    from grader.notebook import service as client

    monkeypatch.delenv("AGSTATE_GRADING_SERVICE", raising=False)
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(_workspace(tmp_path)))
    monkeypatch.setattr(client, "has_local_grader", lambda: False)  # the course kit: no grader.engine
    assert notebook.check("state") is None
    assert capsys.readouterr().out.strip() == client.NO_SERVICE
    with pytest.raises(ValueError, match="unknown task or part"):
        notebook.check("state.nothing")
