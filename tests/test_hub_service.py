"""The grading service under a real JupyterHub, as root: declared in the hub's configuration, run by the hub as its own
account, reached through the hub's proxy with the students' own tokens.

Two student accounts and the service's account are made here (and removed);
the service runs from ``make students-env`` (the grader and JupyterHub, on
the system's Python). Each claim of docs/instructor/grading-service.md is a
subtest: a check graded with the student's practice seed; a student reads
only their own results; a token the hub does not vouch for, or without the
service's scope, is refused; a burst from one student is refused politely
while the other is answered; killing the service mid-check loses nothing,
leaves nothing running, and the hub starts it again.

One test, each claim a subtest: the accounts are made once, in one worker.
"""

import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest
import requests
from browser import chromium
from conftest import ROOT, SOLUTIONS
from hub_server import jupyterhub, log_in, students_env, unix_accounts, wait_until
from lab_server import free_port
from playwright.sync_api import expect
from test_grading_service import BUG, STATE, _package

from grader.service.app import practice_seed

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.geteuid() != 0, reason="makes Unix accounts: root only (CI)")]

STUDENTS = ("agstate-g1", "agstate-g2")
SERVICE_ACCOUNT = "agstate-grading"
PRACTICE_SECRET = "the-hub-tests-practice-secret"
ADMIN_TOKEN = "test-admin-" + os.urandom(8).hex()
# The service's declaration, as docs/instructor/grading-service.md gives it, and a token-only admin for the test.
_SERVICES = '''
c.JupyterHub.services = [
    {{"name": "agstate-grader", "url": "http://127.0.0.1:{port}", "user": {account!r}, "cwd": {work!r},
      "command": [{command!r}, "--part", "state", "--examples", "10", "--per-minute", "4", "--jobs", "2"],
      "environment": {{"AGSTATE_PRACTICE_SECRET": "{secret}", "PATH": {path!r}}}}},
    {{"name": "test-admin", "api_token": {admin!r}}},
]
c.JupyterHub.load_roles = [
    {{"name": "user", "scopes": ["self", "access:services!service=agstate-grader"]}},
    {{"name": "test-admin", "scopes": ["admin:users", "tokens"], "services": ["test-admin"]}},
]
c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server", "access:services!service=agstate-grader"]
'''


class Hubbed:
    def __init__(self, hub, work: Path, browser, course_kit: Path):
        self.hub, self.work, self.browser, self.course_kit = hub, work, browser, course_kit
        self.api = f"{hub.url}/services/agstate-grader/api"
        self.tokens = {student: self.token(student, ["access:services!service=agstate-grader"]) for student in STUDENTS}

    def token(self, student: str, scopes: list[str]) -> str:
        made = requests.post(f"{self.hub.url}/hub/api/users/{student}/tokens", json={"scopes": scopes, "note": "test"},
                             headers={"Authorization": f"token {ADMIN_TOKEN}"}, timeout=30)
        assert made.status_code == 201, made.text
        return made.json()["token"]

    def check(self, token: str, files: dict, target: str | None = "state.keep_max") -> requests.Response:
        return requests.post(f"{self.api}/check", json={"files": files, "target": target},
                             headers={"Authorization": f"token {token}"}, timeout=600)

    def results(self, token: str) -> requests.Response:
        return requests.get(f"{self.api}/results", headers={"Authorization": f"token {token}"}, timeout=60)

    def gradings(self) -> list[int]:
        """The pids of the service's gradings in progress (agstate-grade, run by the service's account)."""
        found = subprocess.run(["pgrep", "-u", SERVICE_ACCOUNT, "-f", "grader .*--json"], capture_output=True, text=True)
        return [int(pid) for pid in found.stdout.split()]

    def wait_for(self, condition, what: str, seconds: float = 120):
        wait_until(condition, what, seconds, self.hub.log)

    def up(self) -> bool:
        try:
            return requests.get(f"{self.api}/health", timeout=5).ok
        except requests.ConnectionError:
            return False


@pytest.fixture(scope="module")
def hubbed():
    root = Path(tempfile.mkdtemp(prefix="agstate-service-", dir="/tmp"))
    os.chmod(root, 0o755)
    try:
        with unix_accounts(STUDENTS, services=(SERVICE_ACCOUNT,)):
            env = students_env(root / "service-env")  # the grader's environment, for the service
            course_kit = students_env(root / "students-env", kit="course")  # the students': no grader but check()
            work = root / "service"  # the service's own folder: its log and its checks in progress
            work.mkdir(mode=0o700)
            account = pwd.getpwnam(SERVICE_ACCOUNT)
            os.chown(work, account.pw_uid, account.pw_gid)
            port = free_port()
            extra = _SERVICES.format(port=port, account=SERVICE_ACCOUNT, work=str(work), secret=PRACTICE_SECRET,
                                     command=str(env / "bin" / "agstate-grading-service"), admin=ADMIN_TOKEN,
                                     path=f"{env / 'bin'}:/usr/local/bin:/usr/bin:/bin")
            servers = {student: course_kit / "bin" / "jupyterhub-singleuser" for student in STUDENTS}
            service = {"AGSTATE_GRADING_SERVICE": f"http://127.0.0.1:{port}/services/agstate-grader/"}
            with jupyterhub(root / "hub", env, servers, extra_config=extra, environment=service) as hub, \
                    chromium() as browser:
                hubbed = Hubbed(hub, work, browser, course_kit)
                hubbed.wait_for(hubbed.up, "the service answers")
                yield hubbed
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _a_check_is_graded_with_the_students_practice_seed(hubbed: Hubbed):
    passed = hubbed.check(hubbed.tokens[STUDENTS[0]], _package(STATE))
    assert passed.status_code == 200, passed.text
    report = passed.json()
    assert report["seed"] == practice_seed(PRACTICE_SECRET, STUDENTS[0]) and report["submission"] == STUDENTS[0]
    assert [(task["id"], task["status"]) for task in report["tasks"]] == [("state.keep_max", "passed")]
    assert report["sandbox"] != "none", report.get("unsandboxed")
    failing = hubbed.check(hubbed.tokens[STUDENTS[1]], _package(BUG)).json()
    assert failing["seed"] == practice_seed(PRACTICE_SECRET, STUDENTS[1])
    assert failing["tasks"][0]["status"] == "failed" and "keep_max(0," in failing["tasks"][0]["feedback"]


def _a_student_reads_only_their_own_results(hubbed: Hubbed):
    for student in STUDENTS:
        results = hubbed.results(hubbed.tokens[student]).json()["results"]
        assert results and {entry["student"] for entry in results} == {student}


def _a_token_the_hub_does_not_vouch_for_is_refused(hubbed: Hubbed):
    unscoped = hubbed.token(STUDENTS[0], ["read:users:name!user"])  # a real token, without the service's scope
    for token in ("garbage", unscoped):
        for answer in (hubbed.check(token, _package(STATE)), hubbed.results(token)):
            assert answer.status_code == 403, answer.text
    assert requests.post(f"{hubbed.api}/check", json={"files": {}}, timeout=30).status_code == 403


# A module that takes its time to import (in the sandbox, no signal can reach it): the check stays in flight.
_SLOW = "import time\ntime.sleep(8)\n"


def _a_burst_from_one_student_is_refused_and_the_other_answered(hubbed: Hubbed):
    first, second = hubbed.tokens[STUDENTS[0]], hubbed.tokens[STUDENTS[1]]
    slow = {}
    in_flight = threading.Thread(target=lambda: slow.update(answer=hubbed.check(first, _package(_SLOW + STATE))))
    in_flight.start()
    hubbed.wait_for(lambda: hubbed.gradings(), "the slow check is graded", 60)
    for _ in range(3):
        refused = hubbed.check(first, _package(STATE))
        assert refused.status_code == 429 and "a check of yours is still running" in refused.json()["error"]
        assert refused.headers["Retry-After"].isdigit()
    other = hubbed.check(second, _package(STATE))
    assert other.status_code == 200 and other.json()["tasks"][0]["status"] == "passed"
    assert in_flight.is_alive(), "the other student's check waited for the slow one"
    in_flight.join(600)
    assert slow["answer"].status_code == 200


def _killing_the_service_mid_check_loses_nothing(hubbed: Hubbed):
    before = {student: hubbed.results(hubbed.tokens[student]).json()["results"] for student in STUDENTS}
    answer = {}
    cut = threading.Thread(target=lambda: answer.update(
        reply=_reply_or_error(lambda: hubbed.check(hubbed.tokens[STUDENTS[1]], _package(_SLOW + STATE)))))
    cut.start()
    hubbed.wait_for(lambda: hubbed.gradings(), "the check is graded", 60)
    (service,) = [int(pid) for pid in subprocess.run(["pgrep", "-u", SERVICE_ACCOUNT, "-f", "agstate-grading-service"],
                                                     capture_output=True, text=True).stdout.split()]
    os.kill(service, signal.SIGKILL)
    cut.join(120)
    assert not isinstance(answer["reply"], requests.Response) or answer["reply"].status_code >= 500
    hubbed.wait_for(lambda: not hubbed.gradings(), "the killed service's grading ends with it", 30)
    hubbed.wait_for(hubbed.up, "the hub starts the service again", 180)
    assert not [p for p in hubbed.work.glob("checks-in-progress/*")], "a killed check's folder was left"
    log = (hubbed.work / "agstate-checks.jsonl").read_text().splitlines()
    assert all(json.loads(line) for line in log)  # no half line
    for student in STUDENTS:
        assert hubbed.results(hubbed.tokens[student]).json()["results"] == before[student]
    again = hubbed.check(hubbed.tokens[STUDENTS[1]], _package(STATE))
    assert again.status_code == 200 and again.json()["tasks"][0]["status"] == "passed"


def _reply_or_error(request):
    try:
        return request()
    except requests.RequestException as error:
        return error


def _check_in_a_spawned_servers_kernel_grades_on_the_service(hubbed: Hubbed):
    """The course kit in the student's server: the check cell's files go to the service with the server's token."""
    student = STUDENTS[0]
    account = pwd.getpwnam(student)
    lab = Path(account.pw_dir) / "lab"
    shutil.copytree(ROOT / "agstate", lab / "agstate", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(SOLUTIONS / "agstate" / "state.py", lab / "agstate" / "state.py")
    shutil.copy(ROOT / "notebooks" / "04_keep_max.ipynb", lab)
    subprocess.run(["chown", "-R", f"{account.pw_uid}:{account.pw_gid}", lab], check=True)
    before = len(hubbed.results(hubbed.tokens[student]).json()["results"])
    site = next((hubbed.course_kit / "lib").glob("python3*/site-packages"))
    assert (site / "grader" / "notebook" / "service.py").is_file() and not (site / "grader" / "engine").exists()
    page = log_in(hubbed.browser, hubbed.hub, student)
    page.goto(f"{hubbed.hub.url}/user/{student}/lab/tree/lab/04_keep_max.ipynb")
    page.locator(".jp-StatusBar-Widget", has_text="| Idle").first.wait_for(timeout=120_000)
    cell = page.locator(".jp-Notebook .jp-CodeCell", has_text='check("state.keep_max")')
    cell.locator(".jp-InputPrompt").click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.locator("li[data-command='notebook:run-cell']").click()
    card = cell.locator(".jp-OutputArea-output table")
    expect(card).to_contain_text("state.keep_max", timeout=240_000)
    expect(card).to_contain_text("passed")
    page.context.close()
    results = hubbed.results(hubbed.tokens[student]).json()["results"]
    assert len(results) == before + 1 and results[-1]["outcome"] == "graded" and results[-1]["target"] == "state.keep_max"
    assert results[-1]["seed"] == practice_seed(PRACTICE_SECRET, student)


CLAIMS = [_a_check_is_graded_with_the_students_practice_seed, _a_student_reads_only_their_own_results,
          _a_token_the_hub_does_not_vouch_for_is_refused, _a_burst_from_one_student_is_refused_and_the_other_answered,
          _killing_the_service_mid_check_loses_nothing, _check_in_a_spawned_servers_kernel_grades_on_the_service]


def test_the_grading_service_under_jupyterhub(hubbed, subtests):
    for claim in CLAIMS:
        with subtests.test(msg=claim.__name__.strip("_").replace("_", " ")):
            claim(hubbed)
