"""What a hub course keeps private, checked piece by piece (tests/test_hub_course.py runs them in a whole term).

Who else can reach a path (``grader.exposure``), the grading service's
refusal to start beside a grader, secret or log within others' reach
(``grader.service.privacy``), the hub's configuration ``agstate-course
hub-config`` writes and the layout it records for the audit, and the
practice log an instructor reads. Milliseconds each; the ones that hand a
folder to another account need root (CI).
"""

import json
import os
import pwd
import subprocess
import sys

import pytest
from support.folders import folder_in_tmp
from support.paths import ROOT

from grader.course.hub_config import hub_config
from grader.course.hub_layout import HubLayout, layout_problems
from grader.course.practice_log import read_log, render
from grader.exposure import readable_by_others, writable_by_others
from grader.service.privacy import privacy_problems

pytestmark = pytest.mark.unit
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="hands folders to other accounts: root only (CI)")


@pytest.fixture
def tmp_path():
    """A folder every account may go through (pytest's own is under a 0700 one, where nothing is anyone else's)."""
    with folder_in_tmp("agstate-exposure-", 0o755) as folder:
        yield folder


def _open(folder, mode=0o755):
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(mode)
    return folder


def test_a_path_behind_a_closed_folder_is_nobody_elses(tmp_path):
    top = _open(tmp_path / "top")
    tmp_path.chmod(0o755)
    secret = top / "secret"
    secret.write_text("x")
    secret.chmod(0o644)
    assert readable_by_others(secret) == "every account on this server"
    top.chmod(0o750)  # the folder above: its group only (root's own group: nobody else in it)
    assert readable_by_others(secret) is None
    top.chmod(0o755)
    secret.chmod(0o600)
    assert readable_by_others(secret) is None
    assert writable_by_others(top) is None
    top.chmod(0o757)
    assert writable_by_others(top) == "every account on this server"


@as_root
def test_a_group_with_a_stranger_in_it_counts_as_others(tmp_path):
    tmp_path.chmod(0o755)
    env = _open(tmp_path / "env", 0o750)
    os.chown(env, 0, pwd.getpwnam("daemon").pw_gid)  # daemon's own group: daemon is in it
    assert readable_by_others(env).startswith("the members of its group daemon (daemon")
    assert readable_by_others(env, trusted=frozenset({"daemon"})) is None


@as_root
def test_the_service_refuses_to_start_where_others_reach_what_it_keeps(tmp_path):
    tmp_path.chmod(0o755)
    env, home = _open(tmp_path / "env", 0o750), _open(tmp_path / "home", 0o700)
    package = _open(env / "grader")
    secret = tmp_path / "secret"
    secret.write_text("s" * 32)
    secret.chmod(0o600)
    log, work = home / "checks.jsonl", home / "work"

    def problems():
        return privacy_problems(log, work, secret, environment=env, package=package)

    assert problems() == []  # as make grading-service leaves them
    env.chmod(0o755)
    (package / "rules.py").write_text("")
    (package / "rules.py").chmod(0o646)
    assert problems() == [
        f"every account on this server can read {env}, the service's environment (the grader: its models and rules): "
        f"sudo chmod -R o-rwx {env}",
        f"every account on this server can write {package / 'rules.py'}, in the service's environment: "
        f"sudo chmod -R go-w {env}"]
    env.chmod(0o750)
    secret.chmod(0o644)
    home.chmod(0o777)
    assert problems() == [
        f"every account on this server can read {secret}, the practice secret: sudo chmod o-rwx {secret}",
        f"every account on this server can write {home}, where the service's log is kept: sudo chmod go-w {home}",
        f"every account on this server can write {home}, where the checks in progress is kept: sudo chmod go-w {home}"]


def test_the_hub_configuration_carries_the_courses_settings_and_no_secret(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'c1'\nc.Exchange.root = '/srv/x'\n"
        "c.ScoreChecks.parts = ['state', 'board']\nc.ScoreChecks.examples = 20\nc.ScoreChecks.grader_timeout = 30.0\n")
    me = pwd.getpwuid(os.geteuid()).pw_name
    text = hub_config(course, [me, f"{me}=/opt/prof-env"][1:], HubLayout(secret_file="/etc/g/secret"))
    compile(text, "jupyterhub_config.py", "exec")

    class Config(dict):
        def __getattr__(self, name):
            return self.setdefault(name, Config())

        def __setattr__(self, name, value):
            self[name] = value

    c = Config()
    exec(text, {"get_config": lambda: c})
    (service,) = c.JupyterHub.services
    assert service["command"] == ["/opt/agstate-grading/bin/agstate-grading-service", "--secret-file", "/etc/g/secret",
                                  "--instructors", "agstate-instructors", "--roster-group", "agstate-students",
                                  "--part", "state", "board", "--examples", "20", "--timeout", "30"]
    assert service["user"] == "agstate-grading" and "environment" in service and "secret" not in json.dumps(service["environment"])
    assert c.PAMAuthenticator.allowed_groups == {"agstate-instructors", "agstate-students"}
    assert c.JupyterHub.bind_url == "http://127.0.0.1:8000"  # no certificate: behind a TLS proxy
    spawner = type("Spawner", (), {"user": type("User", (), {"name": me})()})()
    c.Spawner.pre_spawn_hook(spawner)
    assert spawner.cmd == ["/opt/prof-env/bin/jupyterhub-singleuser"]
    spawner.user.name = "a-student"
    c.Spawner.pre_spawn_hook(spawner)
    assert spawner.cmd == ["/opt/agstate-students/bin/jupyterhub-singleuser"]
    assert spawner.environment["AGSTATE_GRADING_SERVICE"] == "http://127.0.0.1:10101/services/agstate-grader/"


def test_hub_config_records_its_layout_and_the_audit_checks_it(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.course_id = 'c1'\n"
                                               "c.Exchange.root = '/srv/x'\nc.ScoreChecks.parts = ['state']\n")
    hub = tmp_path / "hub"
    hub.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    done = subprocess.run([sys.executable, "-m", "grader.course.cli", "hub-config", str(course), "--instructor",
                           pwd.getpwuid(os.geteuid()).pw_name, "--hub-config-dir", str(hub), "--output",
                           str(tmp_path / "hub.py")], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "hub.py").stat().st_mode & 0o777 == 0o600
    layout = json.loads((course / "hub-layout.json").read_text())
    assert layout["hub_config_dir"] == str(hub)
    assert f"every account on this server can read {hub}, the hub's configuration: sudo chmod -R o-rwx {hub}" in \
        layout_problems(HubLayout(**layout))


def test_the_practice_log_sums_each_student_and_shows_the_graders_failures(tmp_path):
    log = tmp_path / "agstate-checks.jsonl"
    lines = [{"time": 0, "student": "ana", "outcome": "graded", "target": "state", "score": 40, "max_score": 100,
              "seconds": 2.5},
             {"time": 60, "student": "ana", "outcome": "grader failure", "target": "state.dedupe", "detail": "Traceback…"},
             {"time": 61, "student": "ben", "outcome": "refused", "why": "a check of yours is still running", "refused": 3}]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"time": 62, "stud')  # a line a crash cut short
    said = render(read_log(log))
    assert said.splitlines() == [
        "2 students, 3 lines",
        "  ana: 1 graded, 1 grader failure; latest graded: 1970-01-01 00:00:00 UTC  graded         state: 40 / 100 in 2.5 s",
        "  ben: 1 refused",
        "grader failures (the grader's, not the students': tell the lab's maintainers): 1",
        "  ana 1970-01-01 00:01:00 UTC  grader failure state.dedupe: Traceback…"]
    assert render(read_log(log), "ben").splitlines()[1] == \
        "  1970-01-01 00:01:01 UTC  refused        every part: a check of yours is still running"
