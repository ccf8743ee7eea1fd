"""A graded course on JupyterHub, as docs/instructor/hub-course.md sets it up: the whole term, private by construction.

As root (CI runs as root; elsewhere this module is skipped), with real Unix
accounts: the instructor (the private clone's account, ``agstate-tester``),
three students, the grading service's own account, and the students' and
instructors' groups (test names, so that a server's real ones are never
touched). Every step is a command of the page, run as its account:

- the admin: ``hidepid=invisible`` on /proc (restored after), the exchange,
  a clone no other account can enter, ``make students-env KIT=course`` and
  ``make grading-service``, the students' nbgrader configuration written
  from the course kit's own ``agstate-course``, the hub's configuration as
  ``agstate-course hub-config`` wrote it (plus the test's loopback ports and
  dummy login only, ``tests/support/hub_server.py``), JupyterHub started on it;
- the instructor: ``agstate-course init``, ``config instructor``, release;
  later collect, autograde, audit, a point by hand, feedback, the LMS export,
  ``agstate-course practice-log``;
- the students: fetch, check() on the grading service with their own tokens
  (a check cell in a server the hub started, in a browser; the welcome
  notebook, run as a student), submit, fetch their feedback, list it.

The attacks, by the third student: a folder in the exchange in a
classmate's name, hand-made folders (no secret, dated in the future, one
the instructor cannot read, a name with no time), writing into and renaming
a classmate's submission, and her own module swapped for a link to the
instructor's reference. Each must fail with the victim's submission, grade
and feedback intact. Then every isolation probe of the page's table, as
each student. Then the service's claims: a burst, a SIGKILL mid-check, and
a service that refuses to start beside an environment others can read.

One test, each claim a subtest: the term makes and removes the same Unix
accounts, so it runs once, in one worker. Its cost is the two environments
(about 6 minutes on 2 cores) and the term (about 4).
"""

import contextlib
import csv
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
import requests
from nbgrader.api import Gradebook
from playwright.sync_api import expect
from support.browser import chromium
from support.corpus import Corpus
from support.hub_server import in_group, jupyterhub, log_in, make, private_checkout, unix_accounts, wait_until
from support.paths import ROOT, SOLUTIONS
from support.private_clone import ORDINARY_USER, private_clone

from grader.service.app import practice_seed

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.geteuid() != 0, reason="makes Unix accounts: root only (CI)")]

S1, S2, S3 = STUDENTS = ("agstate-s1", "agstate-s2", "agstate-s3")  # the reference; a bug (the victim); the attacker
SERVICE_USER, INSTRUCTORS, STUDENTS_GROUP = "agstate-tgrading", "agstate-tinstructors", "agstate-tstudents"
COURSE_ID, ASSIGNMENT = "agstate-hub", "agstate-lab"
BUG = Corpus("state").mutant_source("keep_max_zero_is_absent")
REFERENCE = (SOLUTIONS / "agstate" / "state.py").read_text()
SCOPE = ["access:services!service=agstate-grader"]


class Course:
    """Where the term ran, what its commands printed, and the hub it runs under."""

    def __init__(self, root: Path):
        self.root = root
        self.exchange = root / "exchange"
        self.students_env, self.service_env = root / "students-env", root / "grading-env"
        self.service_home, self.secret = root / "service-home", root / "grading-etc" / "practice-secret"
        self.hub_etc, self.hub_state = root / "hub-etc", root / "hub-state"
        self.admin = root / "admin"  # the admin's clone, in a folder of mode 0700
        self.clone = private_clone(ORDINARY_USER)
        self.instructor = pwd.getpwnam(ORDINARY_USER)
        self.course = Path(self.instructor.pw_dir) / "agstate-hub-course"
        self.logs: dict[str, subprocess.CompletedProcess] = {}
        self.hub = self.browser = None
        self.service_port = None
        self.submissions: dict[str, Path] = {}  # each student's own folder in the exchange, as nbgrader submit made it
        self.started, self.timeline = time.monotonic(), []  # (step, minutes since the bare server): the closing figure

    def mark(self, step: str) -> None:
        self.timeline.append((step, (time.monotonic() - self.started) / 60))
        print(f"[hub course] {self.timeline[-1][1]:5.1f} min: {step}", flush=True)

    def home(self, account: str) -> Path:
        return Path(pwd.getpwnam(account).pw_dir)

    def run(self, account: str, name: str, *command, cwd: Path | None = None, check: bool = True,
            env: dict | None = None) -> subprocess.CompletedProcess:
        """``command`` as ``account`` (its groups too), in its home (or ``cwd``), its own environment's tools first."""
        entry = pwd.getpwnam(account)
        tools = self.clone.lab / ".venv" / "bin" if account == ORDINARY_USER else self.students_env / "bin"
        environment = {"HOME": entry.pw_dir, "USER": account, "LOGNAME": account, "LANG": "C.UTF-8",
                       "PATH": f"{tools}:/usr/local/bin:/usr/bin:/bin", **(env or {})}
        done = subprocess.run(["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups", "--",
                               *map(str, command)], cwd=cwd or entry.pw_dir, env=environment, capture_output=True,
                              text=True, timeout=900)
        self.logs[name] = done
        if check:
            assert done.returncode == 0, f"{name}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
        return done

    @property
    def api(self) -> str:
        return f"{self.hub.url}/services/agstate-grader/api"

    def check(self, token: str, state: str | None, target: str | None = "state.keep_max") -> requests.Response:
        files = {path.name: path.read_text() for path in sorted((ROOT / "agstate").glob("*.py"))}
        if state is not None:
            files["state.py"] = state
        return requests.post(f"{self.api}/check", json={"files": files, "target": target},
                             headers={"Authorization": f"token {token}"}, timeout=600)

    def results(self, token: str) -> requests.Response:
        return requests.get(f"{self.api}/results", headers={"Authorization": f"token {token}"}, timeout=60)

    def gradings(self) -> list[int]:
        """The pids of the service's gradings in progress: forks of its warm grader (grader.warm.server), each a
        process of that command line whose parent is the warm grader itself."""
        listed = subprocess.run(["ps", "-ww", "-u", SERVICE_USER, "-o", "pid=,ppid=,args="], capture_output=True, text=True)
        self.last_listing = listed.stdout + listed.stderr  # what an assertion shows when no grading was seen
        warm = {int(pid): int(ppid) for pid, ppid, *args in map(str.split, listed.stdout.splitlines())
                if "grader.warm.server" in " ".join(args)}
        return [pid for pid, parent in warm.items() if parent in warm]

    def service_up(self) -> bool:
        try:
            return requests.get(f"{self.api}/health", timeout=5).ok
        except requests.ConnectionError:
            return False

    def wait_for(self, condition, what: str, seconds: float = 120):
        wait_until(condition, what, seconds, self.hub.log)


@contextlib.contextmanager
def hidden_processes():
    """The docs' ``hidepid=invisible`` on /proc for the term; /proc's own option again after."""
    mounted = next(line.split()[3] for line in Path("/proc/mounts").read_text().splitlines() if line.split()[1] == "/proc")
    before = next((option.split("=", 1)[1] for option in mounted.split(",") if option.startswith("hidepid=")), "off")
    subprocess.run(["mount", "-o", "remount,hidepid=invisible", "/proc"], check=True)
    try:
        yield
    finally:
        subprocess.run(["mount", "-o", f"remount,hidepid={before}", "/proc"], check=True)


@pytest.fixture(scope="module")
def course():
    root = Path(tempfile.mkdtemp(prefix="agstate-hub-", dir="/tmp"))
    os.chmod(root, 0o755)
    people = {ORDINARY_USER: None, **dict.fromkeys(STUDENTS, STUDENTS_GROUP)}
    term = None
    try:
        with unix_accounts({s: STUDENTS_GROUP for s in STUDENTS}, services=(SERVICE_USER,),
                           groups=(INSTRUCTORS, STUDENTS_GROUP)), hidden_processes():
            term = Course(root)
            in_group(ORDINARY_USER, INSTRUCTORS)
            _set_up(term)
            servers = [*people]
            with jupyterhub(root / "hub", term.students_env, _hub_config(term), servers) as hub, chromium() as browser:
                term.hub, term.browser = hub, browser
                term.wait_for(term.service_up, "the grading service answers")
                term.mark("the hub and the grading service up")
                term.tokens = {student: hub.token(student, SCOPE) for student in STUDENTS}
                _the_term(term)
                yield term
    finally:
        if term is not None:
            shutil.rmtree(term.course, ignore_errors=True)
            Path(term.instructor.pw_dir, ".jupyter", "nbgrader_config.py").unlink(missing_ok=True)
            Path(term.instructor.pw_dir, "jupyterhub_config.py").unlink(missing_ok=True)
        shutil.rmtree(root, ignore_errors=True)


def _set_up(term: Course) -> None:
    """Sections 1 to 5 of the page: the admin's environments, the instructor's course, the hub's configuration."""
    subprocess.run(["install", "-d", "-m", "1777", str(term.exchange)], check=True)
    for folder in (term.hub_etc, term.hub_state):
        folder.mkdir(mode=0o700)
    admin = private_checkout(term.admin)
    make(admin, "students-env", KIT="course", PREFIX=term.students_env)
    term.mark("the students' environment (the course kit)")
    make(admin, "grading-service", SERVICE_USER=SERVICE_USER, SERVICE_PREFIX=term.service_env,
         SERVICE_HOME=term.service_home, SERVICE_SECRET=term.secret, INSTRUCTORS=INSTRUCTORS)
    term.mark("the grading service's environment, secret and folder")
    shutil.rmtree(term.course, ignore_errors=True)
    tools = term.clone.lab / ".venv" / "bin"
    term.run(ORDINARY_USER, "init", tools / "agstate-course", "init", term.course, "--part", "state", "--course-id",
             COURSE_ID, "--exchange", term.exchange, "--due", "2099-01-01 12:00 UTC", "--seed", "5", "--examples", "20")
    term.run(ORDINARY_USER, "config instructor", tools / "agstate-course", "config", "instructor", term.course)
    term.run(ORDINARY_USER, "generate", "nbgrader", "generate_assignment", ASSIGNMENT)
    term.run(ORDINARY_USER, "release", "nbgrader", "release_assignment", ASSIGNMENT)
    # The admin writes the students' configuration with the course kit's own agstate-course.
    written = subprocess.run([term.students_env / "bin" / "agstate-course", "config", "student", term.course, "--output",
                              term.students_env / "etc" / "jupyter" / "nbgrader_config.py"], capture_output=True, text=True)
    assert written.returncode == 0, written.stderr
    term.service_port = _free_port()
    term.run(ORDINARY_USER, "hub-config", tools / "agstate-course", "hub-config", term.course,
             "--instructor", f"{ORDINARY_USER}={term.clone.lab / '.venv'}", "--students-env", term.students_env,
             "--service-env", term.service_env, "--service-user", SERVICE_USER, "--service-home", term.service_home,
             "--secret-file", term.secret, "--service-port", term.service_port, "--hub-config-dir", term.hub_etc,
             "--hub-state-dir", term.hub_state, "--instructors-group", INSTRUCTORS, "--students-group", STUDENTS_GROUP,
             "--output", Path(term.instructor.pw_dir) / "jupyterhub_config.py")
    subprocess.run(["install", "-m", "600", Path(term.instructor.pw_dir) / "jupyterhub_config.py",
                    term.hub_etc / "jupyterhub_config.py"], check=True)
    term.mark("the course and the hub's configuration")


def _free_port() -> int:
    from support.lab_server import free_port

    return free_port()


def _hub_config(term: Course) -> str:
    return (term.hub_etc / "jupyterhub_config.py").read_text()


def _inbound(term: Course) -> Path:
    return term.exchange / COURSE_ID / "inbound"


def _own_submission(term: Course, student: str) -> Path:
    """The folder ``nbgrader submit`` made for ``student`` (the term's first and only submit of each)."""
    if student not in term.submissions:
        (term.submissions[student],) = _inbound(term).glob(f"{student}+{ASSIGNMENT}+*")
    return term.submissions[student]


def _the_term(term: Course) -> None:
    """Section 7: the students work, check and submit; the attacks; the instructor collects, grades and feeds back."""
    works = {S1: REFERENCE, S2: BUG, S3: None}
    for student, work in works.items():
        term.run(student, f"fetch {student}", "nbgrader", "fetch_assignment", ASSIGNMENT)
        if work is not None:
            mine = term.home(student) / ASSIGNMENT / "agstate" / "state.py"
            mine.write_text(work)
            os.chown(mine, pwd.getpwnam(student).pw_uid, pwd.getpwnam(student).pw_gid)
    for student in STUDENTS:
        term.run(student, f"submit {student}", "nbgrader", "submit", ASSIGNMENT)
        _own_submission(term, student)
    _attacks(term)
    instructor = ORDINARY_USER
    collected = term.run(instructor, "collect", "nbgrader", "collect", ASSIGNMENT)
    for student in STUDENTS:  # each student's own submission, whatever else the exchange holds in their name
        assert f"Collecting submission: {student} {ASSIGNMENT}" in collected.stderr, collected.stderr[-5000:]
    term.run(instructor, "autograde", "nbgrader", "autograde", ASSIGNMENT)
    term.run(instructor, "audit", term.clone.lab / ".venv" / "bin" / "agstate-course", "audit", term.course, check=False)
    term.run(instructor, "manual point", term.clone.python, "-c", _MANUAL, S3, cwd=term.course)
    term.run(instructor, "generate_feedback", "nbgrader", "generate_feedback", ASSIGNMENT)
    term.run(instructor, "release_feedback", "nbgrader", "release_feedback", ASSIGNMENT)
    for student in STUDENTS:
        term.run(student, f"fetch_feedback {student}", "nbgrader", "fetch_feedback", ASSIGNMENT)
        term.run(student, f"list {student}", "nbgrader", "list", "--cached")
    roster = term.course / "canvas-export.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section,agstate lab (77)\n    Points Possible,,,,,\n"
                      + "".join(f"S {s},{i},,{s},A,\n" for i, s in enumerate(STUDENTS)))
    os.chown(roster, term.instructor.pw_uid, term.instructor.pw_gid)
    term.run(instructor, "export", "nbgrader", "export", "--exporter", "grader.course.lms_export.CanvasExport",
             "--to", term.course / "grades.canvas.csv", f"--CanvasExport.roster={roster}",
             "--CanvasExport.lms_assignment=agstate lab (77)", cwd=term.course)


_MANUAL = f'''
import sys
from nbgrader.api import Gradebook
from grader.authoring.assignment import check_grade_ids
with Gradebook("sqlite:///gradebook.db", {COURSE_ID!r}) as gb:
    grades = [g for nb in gb.find_submission({ASSIGNMENT!r}, sys.argv[1]).notebooks for g in nb.grades]
    grade = next(g for g in grades if g.name not in check_grade_ids() and g.max_score)  # a written answer
    grade.manual_score = 1
    gb.db.commit()
'''

# What the attacker writes in the exchange, as a shell script run as her: each folder is a way nbgrader's own exchange
# was fooled (shared/reviews/instructor-hub.md), made by hand with what nbgrader submit writes.
_ATTACKS = '''
set -e
cd "$1"; own="$2"; victim="$3"; assignment="$4"; me=$(id -un)
now=$(date -u +"%Y-%m-%d %H:%M:%S.%6N UTC")  # later than every real submission, not in the future
forge() {  # forge NAME [no-secret]
    mkdir "$1"; cp -r "$own/agstate" "$1/"; cp "$own"/*.ipynb "$1/"
    echo "$now" > "$1/timestamp.txt"
    [ "$2" = no-secret ] || echo "forged" > "$1/submission_secret.txt"
    return 0
}
forge "$victim+$assignment+$now+impersonation"
forge "$me+$assignment+$now+handmade" no-secret
forge "$me+$assignment+2097-01-01 00:00:00.000000 UTC+future"
forge "$me+$assignment+$now+unreadable"
chmod 700 "$me+$assignment+$now+unreadable"
forge "$me+$assignment+soon+garbled"
'''


def _attacks(term: Course) -> None:
    own = _own_submission(term, S3)
    victim = _own_submission(term, S2)
    term.run(S3, "attacks", "sh", "-c", _ATTACKS, "attacks", _inbound(term), own, S2, ASSIGNMENT)
    # Into the victim's submission, by its name (which she cannot list): write, rename, remove.
    for what in ("write", "rename"):
        tried = term.run(S3, f"attack {what}", term.students_env / "bin" / "python", "-c", _TRY, what, victim, check=False)
        term.logs[f"attack {what}"] = tried
    # Her own module, in her own submission, swapped for a link to the instructor's reference solution.
    term.run(S3, "link", "ln", "-sf", term.clone.lab / "solutions" / "agstate" / "state.py", own / "agstate" / "state.py")


_TRY = '''
import os, subprocess, sys
what, path = sys.argv[1], sys.argv[2]
try:
    if what == "read":
        open(path, "rb").read(1)
    elif what == "list":
        os.listdir(path)
    elif what == "write":
        open(os.path.join(path, "planted"), "w").write("x")
    elif what == "rename":
        os.rename(path, path + ".moved")
    elif what == "run":
        subprocess.run([path, "--help"], capture_output=True, check=True)
    elif what == "processes":  # any process of another account in sight (/proc)
        me = os.getuid()
        seen = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if os.stat(f"/proc/{pid}").st_uid != me:
                    seen.append(pid)
            except FileNotFoundError:
                pass
        if not seen:
            raise PermissionError("no process of another account in /proc")
except PermissionError:
    print("refused")
else:
    print("DONE")
'''


def _service_log_tail(term: Course) -> str:
    """The service's last log lines, its grader's own messages among them (a grader failure's ``detail``)."""
    try:
        return "\n".join((term.service_home / "agstate-checks.jsonl").read_text().splitlines()[-3:])
    except OSError as error:
        return f"(no service log: {error})"


def _scores(term: Course) -> dict[str, float]:
    with Gradebook(f"sqlite:///{term.course / 'gradebook.db'}", COURSE_ID) as gb:
        return {student: gb.find_submission(ASSIGNMENT, student).score for student in STUDENTS}


def _the_bug_scores(term: Course) -> float:
    """What agstate-grade gives the victim's own work at the course's settings (the gradebook must say the same)."""
    folder = term.root / "bug" / "agstate"
    shutil.copytree(ROOT / "agstate", folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "state.py").write_text(BUG)
    graded = subprocess.run([term.clone.python, "-m", "grader", folder.parent, "--json", "--part", "state", "--seed", "5",
                             "--examples", "20"], capture_output=True, text=True, timeout=600)
    return json.loads(graded.stdout)["score"]


# The claims of the term, each a subtest.

def _practice_is_graded_on_the_service_with_the_students_own_seed(term: Course):
    passed = term.check(term.tokens[S1], REFERENCE)
    assert passed.status_code == 200, passed.text + "\n" + _service_log_tail(term)
    term.mark("the first graded check()")
    report = passed.json()
    assert report["submission"] == S1 and report["sandbox"] == "bubblewrap"
    assert [(task["id"], task["status"]) for task in report["tasks"]] == [("state.keep_max", "passed")]
    assert report["seed"] == practice_seed(term.secret.read_text().strip(), S1)
    failing = term.check(term.tokens[S2], BUG).json()
    assert failing["tasks"][0]["status"] == "failed" and "keep_max(0," in failing["tasks"][0]["feedback"]
    assert failing["seed"] != report["seed"]  # each student's own practice seed
    for student in (S1, S2):
        results = term.results(term.tokens[student]).json()["results"]
        assert results and {entry["student"] for entry in results} == {student}
        assert all("detail" not in entry for entry in results)
    unscoped = term.hub.token(S1, ["read:users:name!user"])  # a real token, without the service's scope
    for token in ("garbage", unscoped):
        assert term.check(token, REFERENCE).status_code == 403
    assert requests.get(f"{term.hub.url}/services/agstate-grader/", timeout=30).status_code == 200  # no 404 a minute


def _a_check_cell_in_a_spawned_server_grades_on_the_service(term: Course):
    """The course kit in the victim's server: the check cell's files go to the service with the server's token."""
    page = log_in(term.browser, term.hub, S2)
    page.goto(f"{term.hub.url}/user/{S2}/lab/tree/{ASSIGNMENT}/04_keep_max.ipynb")
    page.locator(".jp-StatusBar-Widget", has_text="| Idle").first.wait_for(timeout=120_000)
    cell = page.locator(".jp-Notebook .jp-CodeCell", has_text='check("state.keep_max")')
    cell.locator(".jp-InputPrompt").click()  # the prompt: the check cell is locked, a click in its editor runs nothing
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.locator("li[data-command='notebook:run-cell']").click()
    card = cell.locator(".jp-OutputArea-output table")
    expect(card).to_contain_text("state.keep_max", timeout=240_000)
    expect(card).to_contain_text("failing")
    expect(card).to_contain_text("keep_max(0,")
    expect(cell.locator(".jp-OutputArea")).to_contain_text("your practice seed")
    assert page.goto(f"{term.hub.url}/user/{S2}/formgrader").status == 404  # no instructor tools for students
    page.context.close()
    last = term.results(term.tokens[S2]).json()["results"][-1]
    assert last["outcome"] == "graded" and last["target"] == "state.keep_max"


def _the_welcome_notebook_runs_under_the_course_kit(term: Course):
    """Every cell of 00_welcome, as a student, in her environment (no grader): its demo grades on the service."""
    work = term.home(S1) / ASSIGNMENT
    token = term.hub.token(S1, SCOPE)
    done = term.run(S1, "welcome", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                    "--ExecutePreprocessor.timeout=600", "--output", "welcome-run", "--output-dir", work,
                    work / "00_welcome.ipynb", cwd=work, env={"JUPYTERHUB_API_TOKEN": token,
                                   "AGSTATE_GRADING_SERVICE": f"http://127.0.0.1:{term.service_port}/services/agstate-grader/"},
                    check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    ran = json.loads((work / "welcome-run.ipynb").read_text())
    shown = "".join(str(output) for cell in ran["cells"] for output in cell.get("outputs", []))
    assert "same seed, same report" in shown and "Traceback" not in shown


def _the_attacks_fail_and_the_victim_keeps_her_submission_and_feedback(term: Course):
    scores = _scores(term)
    assert scores[S1] == 100
    assert scores[S2] == _the_bug_scores(term) and 0 < scores[S2] < 100, "the victim was not graded on her own work"
    assert scores[S3] == 1, "the link to the reference counted, or a forged folder was graded"  # the point by hand
    collected = term.course / "submitted" / S2 / ASSIGNMENT / "agstate" / "state.py"
    assert collected.read_text() == BUG
    assert not (term.course / "submitted" / S3 / ASSIGNMENT / "agstate" / "state.py").exists()
    warned = term.logs["collect"].stdout + term.logs["collect"].stderr
    for refusal in (f"it claims to be '{S2}''s but was made by '{S3}'", "it was not made by nbgrader submit",
                    "in the future", "the instructor's account cannot read it", "its name does not end in a time",
                    f"Not collected from student '{S3}': agstate/state.py is a symbolic link"):
        assert refusal in warned, refusal
    for attack in ("attack write", "attack rename"):
        assert term.logs[attack].stdout.strip() == "refused", attack
    released = term.logs["release_feedback"].stdout + term.logs["release_feedback"].stderr
    assert "Traceback" not in released
    for student, score in ((S1, "100 / 100"), (S2, f"{scores[S2]:g} / 100"), (S3, "0 / 100")):
        pages = list((term.home(student) / ASSIGNMENT / "feedback").glob("*/index.html"))
        assert len(pages) == 1, term.logs[f"fetch_feedback {student}"].stderr
        assert f"<b>{score}</b>" in pages[0].read_text() and "seed" not in pages[0].read_text()


def _the_audit_names_every_refused_folder(term: Course):
    audit = term.logs["audit"]
    assert audit.returncode == 1, audit.stdout + audit.stderr
    assert f"never collected: it claims to be '{S2}''s but was made by '{S3}'" in audit.stdout
    assert "in the future" in audit.stdout and "not made by nbgrader submit" in audit.stdout
    assert "agstate/state.py is a symbolic link to" in audit.stdout
    assert f"{S1}: agstate/state.py is the reference solution, byte for byte" in audit.stdout
    assert "permissions:" not in audit.stdout, audit.stdout  # the page's layout leaves nothing open


def _each_student_lists_the_score_and_the_lms_file_has_it(term: Course):
    scores = _scores(term)
    for student in STUDENTS:
        listed = term.logs[f"list {student}"]
        assert re.search(rf" {ASSIGNMENT} .* score {scores[student]:g} / \d+", listed.stdout + listed.stderr)
    with open(term.course / "grades.canvas.csv", newline="") as sheet:
        rows = {row["SIS Login ID"]: row["agstate lab (77)"] for row in csv.DictReader(sheet) if row["SIS Login ID"]}
    assert rows == {student: f"{scores[student]:g}" for student in STUDENTS}


def _the_instructor_reads_the_practice_log_without_root(term: Course):
    said = term.run(ORDINARY_USER, "practice-log", term.clone.lab / ".venv" / "bin" / "agstate-course", "practice-log",
                    term.service_home / "agstate-checks.jsonl").stdout
    assert f"  {S1}: " in said and f"  {S2}: " in said and "graded" in said, said


def _the_instructor_formgrader_lists_the_submissions(term: Course):
    page = log_in(term.browser, term.hub, ORDINARY_USER)
    page.goto(f"{term.hub.url}/user/{ORDINARY_USER}/formgrader/manage_submissions/{ASSIGNMENT}")
    table = page.locator("#main-table")
    for student, score in _scores(term).items():
        expect(table.locator("tr", has_text=student)).to_contain_text(f"{score:g} /", timeout=120_000)
    page.context.close()


# Every probe of the page's table, as each student: (what, where), each refused.
def _probes(term: Course, student: str) -> list[tuple[str, Path]]:
    others = [s for s in STUDENTS if s != student]
    site = next(term.service_env.glob("lib/python3*/site-packages"), term.service_env / "lib")
    return [
        ("list", term.service_env), ("read", site / "grader" / "parts" / "state" / "model.py"),
        ("run", term.service_env / "bin" / "agstate-grade"), ("read", term.secret), ("list", term.secret.parent),
        ("read", term.service_home / "agstate-checks.jsonl"), ("list", term.service_home),
        ("read", term.admin / "lab" / "solutions" / "agstate" / "state.py"),
        ("read", term.clone.lab / "solutions" / "agstate" / "state.py"),
        ("read", term.course / "gradebook.db"), ("read", term.course / "nbgrader_config.py"),
        ("list", term.course / "submitted"), ("list", term.course / "feedback"),
        ("read", term.hub_etc / "jupyterhub_config.py"), ("list", term.hub_state),
        *[("list", term.home(other)) for other in others],
        *[("read", term.home(other) / ASSIGNMENT / "agstate" / "state.py") for other in others],
        *[("read", _own_submission(term, other) / "submission_secret.txt") for other in others],
        *[("write", _own_submission(term, other)) for other in others],
        ("list", _inbound(term)), ("rename", term.exchange / COURSE_ID), ("processes", Path("/proc")),
    ]


def _every_probe_is_refused_as_each_student(term: Course, student: str):
    for what, path in _probes(term, student):
        assert what == "processes" or path.exists() or path.is_symlink(), f"{path} should exist for the probe to mean anything"
        tried = term.run(student, f"probe {what} {path}", term.students_env / "bin" / "python", "-c", _TRY, what, path,
                         check=False)
        assert tried.stdout.strip() == "refused", f"{student} could {what} {path}: {tried.stdout}{tried.stderr}"


# The service's claims.

_SLOW = "import time\ntime.sleep(8)\n"  # a module slow to import (in the sandbox, no signal reaches it): a check in flight


def _a_burst_is_refused_and_another_student_answered(term: Course):
    first, second = term.tokens[S1], term.tokens[S2]
    slow = {}
    in_flight = threading.Thread(target=lambda: slow.update(answer=term.check(first, _SLOW + REFERENCE)))
    in_flight.start()
    term.wait_for(lambda: term.gradings() or not in_flight.is_alive(), "the slow check is graded", 60)
    assert in_flight.is_alive(), (f"the slow check was answered at once: {slow['answer'].status_code} {slow['answer'].text}; "
                                  f"the service's processes: {term.last_listing}")
    refused = term.check(first, REFERENCE)
    assert refused.status_code == 429 and "a check of yours is still running" in refused.json()["error"]
    assert refused.headers["Retry-After"].isdigit()
    other = term.check(second, REFERENCE)
    assert other.status_code == 200 and other.json()["tasks"][0]["status"] == "passed"
    in_flight.join(600)
    assert slow["answer"].status_code == 200


def _killing_the_service_mid_check_loses_nothing(term: Course):
    before = {student: term.results(term.tokens[student]).json()["results"] for student in (S1, S2)}
    answer = {}

    def slow_check():
        try:
            answer["reply"] = term.check(term.tokens[S3], _SLOW + REFERENCE)
        except requests.RequestException as error:
            answer["reply"] = error

    cut = threading.Thread(target=slow_check)
    cut.start()
    term.wait_for(lambda: term.gradings() or not cut.is_alive(), "the check is graded", 60)
    assert cut.is_alive(), f"the slow check was answered at once: {answer['reply']}; the service's processes: {term.last_listing}"
    (service,) = [int(pid) for pid in subprocess.run(["pgrep", "-u", SERVICE_USER, "-f", "agstate-grading-service"],
                                                     capture_output=True, text=True).stdout.split()]
    os.kill(service, signal.SIGKILL)
    cut.join(120)
    assert not isinstance(answer["reply"], requests.Response) or answer["reply"].status_code >= 500
    term.wait_for(lambda: not term.gradings(), "the killed service's grading ends with it", 30)
    term.wait_for(term.service_up, "the hub starts the service again", 180)
    # The service started again has its warm grader's folder afresh (grader.service.app.clear_work); no check's is left.
    left = [path for path in term.service_home.glob("checks-in-progress/*") if path.name != "warm-grader"]
    assert not left, f"a killed check's folder was left: {left}"
    assert all(json.loads(line) for line in (term.service_home / "agstate-checks.jsonl").read_text().splitlines())
    for student in (S1, S2):
        assert term.results(term.tokens[student]).json()["results"] == before[student]


def _the_service_refuses_to_start_beside_an_environment_others_can_read(term: Course):
    """Run as the service's account, as the hub runs it, with the environment opened to all: refused, the path named."""
    subprocess.run(["chmod", "o+rx", term.service_env], check=True)
    try:
        entry = pwd.getpwnam(SERVICE_USER)
        started = subprocess.run(["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups", "--",
                                  term.service_env / "bin" / "agstate-grading-service", "--secret-file", term.secret,
                                  "--instructors", INSTRUCTORS], cwd=term.service_home, capture_output=True, text=True,
                                 timeout=120, env={"PATH": f"{term.service_env / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8"})
    finally:
        subprocess.run(["chmod", "o-rwx", term.service_env], check=True)
    assert started.returncode == 2, started.stderr
    assert (f"every account on this server can read {term.service_env}, the service's environment (the grader: its "
            f"models and rules): sudo chmod -R o-rwx {term.service_env}") in started.stderr


def _a_hub_environment_is_never_built_from_a_checkout_others_can_read(term: Course):
    open_clone = term.root / "open-clone"
    shutil.copytree(term.admin / "lab", open_clone, ignore=shutil.ignore_patterns(".venv", "build"))
    refused = make(open_clone, "students-env", check=False, KIT="course", PREFIX=term.root / "never")
    assert refused.returncode != 0 and not (term.root / "never").exists()
    assert f"every account on this server can read {open_clone / 'solutions'}, the reference solutions" in refused.stderr


def _a_venv_of_another_account_is_explained(term: Course):
    """A .venv root made on an interpreter in its private home (the image's pyenv, in a 0700 /root), run by the
    instructor: make says why and what to do, where the shell said only "bad interpreter: Permission denied"."""
    private_home = term.root / "root-home"
    private_home.mkdir(mode=0o700)
    python = private_home / "python3"
    python.symlink_to(os.path.realpath(sys.executable))
    checkout = term.root / "foreign"
    (checkout / ".venv" / "bin").mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, checkout / name)
    (checkout / ".venv" / "bin" / "python").symlink_to(python)
    tried = term.run(ORDINARY_USER, "foreign venv", "make", "-C", checkout, "setup", check=False)
    assert tried.returncode != 0
    assert f".venv was made by another account with {python}, which {ORDINARY_USER} cannot run" in tried.stderr, tried.stderr
    assert "make VENV=<a folder of yours> PYTHON=/usr/bin/python3 setup" in tried.stderr


CLAIMS = [_practice_is_graded_on_the_service_with_the_students_own_seed,
          _a_check_cell_in_a_spawned_server_grades_on_the_service, _the_welcome_notebook_runs_under_the_course_kit,
          _the_attacks_fail_and_the_victim_keeps_her_submission_and_feedback, _the_audit_names_every_refused_folder,
          _each_student_lists_the_score_and_the_lms_file_has_it, _the_instructor_reads_the_practice_log_without_root,
          _the_instructor_formgrader_lists_the_submissions, _a_venv_of_another_account_is_explained]
SERVICE_CLAIMS = [_a_burst_is_refused_and_another_student_answered, _killing_the_service_mid_check_loses_nothing,
                  _the_service_refuses_to_start_beside_an_environment_others_can_read,
                  _a_hub_environment_is_never_built_from_a_checkout_others_can_read]


def test_a_graded_course_on_jupyterhub(course, subtests):
    for claim in CLAIMS:
        with subtests.test(msg=claim.__name__.strip("_").replace("_", " ")):
            claim(course)
    for student in STUDENTS:
        with subtests.test(msg=f"every probe is refused as {student}"):
            _every_probe_is_refused_as_each_student(course, student)
    for claim in SERVICE_CLAIMS:
        with subtests.test(msg=claim.__name__.strip("_").replace("_", " ")):
            claim(course)
