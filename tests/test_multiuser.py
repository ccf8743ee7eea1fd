"""A term of the course on a shared server, as the accounts of a real one: an instructor and three students.

As root (CI runs as root; elsewhere this module is skipped), with the
commands of docs/instructor/shared-server.md: the students' environment is
``make students-env`` (the kit on the system's Python, every account can run
it), the instructor's is a private clone of the lab (``tests/private_clone.py``,
the account ``agstate-tester``), the exchange a 1777 folder, student homes
0700. Then, each command run as its account through nbgrader's own CLI:
``agstate-course init`` with the shared exchange and a due date, release;
each student fetches, works, submits (one hands in the reference, one a
bug, one the stubs); one student then swaps his module in his inbound folder
for a symbolic link to the instructor's reference solution; collect,
autograde, audit, feedback, each student's ``fetch_feedback``, and the LMS
export with a point given by hand. Each isolation claim of the shared-server
docs is then tried as a student and must be refused.

One test, each check a subtest: the term makes and removes the same Unix
accounts, so it runs once, in one worker (xdist's loadgroup, which would keep
a module's tests together, does not group under pytest 9 with xdist 3.8).
"""

import contextlib
import csv
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from browser import chromium
from conftest import ROOT, SOLUTIONS
from hub_server import jupyterhub, log_in, students_env, unix_accounts
from mutants.state_mutants import MUTANTS, mutant_source
from nbgrader.api import Gradebook
from playwright.sync_api import expect
from private_clone import ORDINARY_USER, private_clone

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.geteuid() != 0, reason="makes Unix accounts: root only (CI)")]

STUDENTS = ("agstate-s1", "agstate-s2", "agstate-s3")  # the reference, a bug then a link, the stubs
COURSE_ID, ASSIGNMENT = "agstate-multiuser", "agstate-lab"
BUG = next(m for m in MUTANTS if m.name == "keep_max_zero_is_absent")


class Term:
    """Where the term ran, and what its commands printed."""

    def __init__(self, root: Path):
        self.root = root
        self.exchange = root / "exchange"
        self.students_env = root / "students-env"
        self.clone = private_clone(ORDINARY_USER)
        self.instructor = pwd.getpwnam(ORDINARY_USER)
        self.course = Path(self.instructor.pw_dir) / "agstate-multiuser-course"
        self.logs: dict[str, subprocess.CompletedProcess] = {}

    def run(self, account: str, name: str, *command, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess:
        """``command`` as ``account``, in its home (or ``cwd``), with its own environment's tools first on PATH."""
        entry = pwd.getpwnam(account)
        tools = self.clone.lab / ".venv" / "bin" if account == ORDINARY_USER else self.students_env / "bin"
        env = {"HOME": entry.pw_dir, "USER": account, "LOGNAME": account, "LANG": "C.UTF-8",
               "PATH": f"{tools}:/usr/local/bin:/usr/bin:/bin"}
        done = subprocess.run(["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups", "--",
                               *map(str, command)], cwd=cwd or entry.pw_dir, env=env, capture_output=True, text=True,
                              timeout=900)
        self.logs[name] = done
        if check:
            assert done.returncode == 0, f"{name}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
        return done


def _give(account: str, path: Path, text: str) -> None:
    """Write ``path`` as if ``account`` had (root writes, then hands it over)."""
    path.write_text(text)
    entry = pwd.getpwnam(account)
    os.chown(path, entry.pw_uid, entry.pw_gid)


@contextlib.contextmanager
def a_term():
    root = Path(tempfile.mkdtemp(prefix="agstate-multiuser-", dir="/tmp"))
    os.chmod(root, 0o755)
    term = None
    try:
        with unix_accounts(STUDENTS):
            term = Term(root)
            _run_the_term(term)
            yield term
    finally:
        if term is not None:
            shutil.rmtree(term.course, ignore_errors=True)
            Path(term.instructor.pw_dir, ".jupyter", "nbgrader_config.py").unlink(missing_ok=True)
        shutil.rmtree(root, ignore_errors=True)


def _run_the_term(term: Term) -> None:
    # The admin: the students' environment and the exchange (docs/instructor/shared-server.md).
    students_env(term.students_env)
    subprocess.run(["install", "-d", "-m", "1777", str(term.exchange)], check=True)
    shutil.rmtree(term.course, ignore_errors=True)
    instructor, lab = ORDINARY_USER, term.clone.lab
    agstate_course = lab / ".venv" / "bin" / "agstate-course"
    term.run(instructor, "init", agstate_course, "init", term.course, "--part", "state", "--course-id", COURSE_ID,
             "--exchange", term.exchange, "--due", "2099-01-01 12:00 UTC", "--seed", "5", "--examples", "20")
    term.run(instructor, "config instructor", agstate_course, "config", "instructor", term.course)
    config = term.students_env / "etc" / "jupyter" / "nbgrader_config.py"  # the admin installs the students' config
    written = subprocess.run([term.students_env / "bin" / "agstate-course", "config", "student", term.course, "--output",
                              config], capture_output=True, text=True)
    assert written.returncode == 0, written.stderr
    # From the home folder: the instructor's ~/.jupyter config finds the course (as a hub-spawned server would).
    term.run(instructor, "generate", "nbgrader", "generate_assignment", ASSIGNMENT)
    term.run(instructor, "release", "nbgrader", "release_assignment", ASSIGNMENT)
    works = {STUDENTS[0]: (SOLUTIONS / "agstate" / "state.py").read_text(), STUDENTS[1]: mutant_source(BUG), STUDENTS[2]: None}
    for student, work in works.items():
        term.run(student, f"fetch {student}", "nbgrader", "fetch_assignment", ASSIGNMENT)
        if work is not None:
            _give(student, Path(pwd.getpwnam(student).pw_dir) / ASSIGNMENT / "agstate" / "state.py", work)
        term.run(student, f"submit {student}", "nbgrader", "submit", ASSIGNMENT)
    # The attack of shared/reviews/instructor-multiuser.md: after submitting, s2 points his module, in his own inbound
    # folder, at the instructor's reference solution (which he cannot read himself).
    (inbound,) = (term.exchange / COURSE_ID / "inbound").glob(f"{STUDENTS[1]}+{ASSIGNMENT}+*")
    term.run(STUDENTS[1], "link", "ln", "-sf", lab / "solutions" / "agstate" / "state.py", inbound / "agstate" / "state.py")
    term.run(instructor, "collect", "nbgrader", "collect", ASSIGNMENT)
    term.run(instructor, "autograde", "nbgrader", "autograde", ASSIGNMENT)
    term.run(instructor, "audit", agstate_course, "audit", term.course, check=False)
    _give_a_manual_point(term, STUDENTS[2])
    term.run(instructor, "generate_feedback", "nbgrader", "generate_feedback", ASSIGNMENT)
    term.run(instructor, "release_feedback", "nbgrader", "release_feedback", ASSIGNMENT)
    for student in STUDENTS:
        term.run(student, f"fetch_feedback {student}", "nbgrader", "fetch_feedback", ASSIGNMENT)
        term.run(student, f"list {student}", "nbgrader", "list", "--cached")
    roster = term.course / "canvas-export.csv"
    _give(instructor, roster, "Student,ID,SIS User ID,SIS Login ID,Section,agstate lab (77)\n"
                              "    Points Possible,,,,,\n" + "".join(f"S {s},{i},,{s},A,\n" for i, s in enumerate(STUDENTS)))
    term.run(instructor, "export", "nbgrader", "export", "--exporter", "grader.course.lms_export.CanvasExport",
             "--to", term.course / "grades.canvas.csv", f"--CanvasExport.roster={roster}",
             "--CanvasExport.lms_assignment=agstate lab (77)", cwd=term.course)


_MANUAL = '''
import sys
from nbgrader.api import Gradebook
from grader.authoring.assignment import check_grade_ids
student = sys.argv[1]
with Gradebook("sqlite:///gradebook.db", {course!r}) as gb:
    grades = [g for nb in gb.find_submission({assignment!r}, student).notebooks for g in nb.grades]
    grade = next(g for g in grades if g.name not in check_grade_ids() and g.max_score)  # a written answer
    grade.manual_score = 1
    gb.db.commit()
'''


def _give_a_manual_point(term: Term, student: str) -> None:
    """The point an instructor gives in the formgrader for a written answer, as the formgrader stores it."""
    term.run(ORDINARY_USER, "manual point", term.clone.python, "-c", _MANUAL.format(course=COURSE_ID, assignment=ASSIGNMENT),
             student, cwd=term.course)


def _scores(term: Term) -> dict[str, float]:
    """Each student's score in the gradebook, as nbgrader computes it (autograded, manual, extra credit)."""
    tools = str(Path(sys.executable).parent)  # nbgrader's gradebook runs alembic, by name
    if tools not in os.environ["PATH"].split(os.pathsep):
        os.environ["PATH"] = f"{tools}{os.pathsep}{os.environ['PATH']}"
    with Gradebook(f"sqlite:///{term.course / 'gradebook.db'}", COURSE_ID) as gb:
        return {student: gb.find_submission(ASSIGNMENT, student).score for student in STUDENTS}


def _the_term_scores_the_work_and_never_the_link(term):
    scores = _scores(term)
    assert scores[STUDENTS[0]] == 100  # the reference's 100 autograded points of part A
    assert scores[STUDENTS[1]] == 0, "the link to the reference solution counted"  # left out: no module handed in
    assert scores[STUDENTS[2]] == 1  # the stubs: nothing autograded, the one point given by hand
    collected = term.course / "submitted" / STUDENTS[1] / ASSIGNMENT / "agstate"
    assert not (collected / "state.py").exists(), "collect copied what the link pointed at"
    warned = term.logs["collect"].stderr + term.logs["collect"].stdout
    assert f"Not collected from student '{STUDENTS[1]}': agstate/state.py is a symbolic link" in warned


def _the_audit_names_the_student_and_the_file(term):
    audit = term.logs["audit"]
    assert audit.returncode == 1, audit.stdout + audit.stderr
    assert f"{STUDENTS[1]}: in the exchange, {STUDENTS[1]}+{ASSIGNMENT}+" in audit.stdout
    assert "agstate/state.py is a symbolic link to" in audit.stdout
    assert f"{STUDENTS[0]}: agstate/state.py is the reference solution, byte for byte" in audit.stdout
    assert "permissions:" not in audit.stdout, audit.stdout  # the docs' layout leaves nothing open


def _each_student_fetches_the_summary_page_with_nbgrader(term):
    for student, score in zip(STUDENTS, ("100 / 100", None, "0 / 100"), strict=True):
        pages = list((Path(pwd.getpwnam(student).pw_dir) / ASSIGNMENT / "feedback").glob("*/index.html"))
        assert len(pages) == 1, term.logs[f"fetch_feedback {student}"].stderr
        assert student in pages[0].read_text()
        if score:
            assert f"<b>{score}</b>" in pages[0].read_text()


def _each_student_lists_the_score_with_nbgrader(term):
    scores = _scores(term)
    for student in STUDENTS:
        listed = term.logs[f"list {student}"]
        assert re.search(rf" {ASSIGNMENT} .* score {scores[student]:g} / \d+ \(feedback already fetched\)",
                         listed.stdout + listed.stderr), listed.stdout + listed.stderr


def _the_lms_file_carries_the_final_grade_manual_points_included(term):
    with open(term.course / "grades.canvas.csv", newline="") as sheet:
        rows = {row["SIS Login ID"]: row["agstate lab (77)"] for row in csv.DictReader(sheet) if row["SIS Login ID"]}
    scores = _scores(term)
    assert rows == {student: f"{scores[student]:g}" for student in STUDENTS}
    assert rows[STUDENTS[2]] == "1"


def _nothing_the_product_makes_or_collects_is_open_to_other_accounts(term):
    assert term.course.stat().st_mode & 0o777 == 0o700
    for directory, _, files in os.walk(term.course / "submitted"):
        assert not os.stat(directory).st_mode & 0o007, directory
        for name in files:
            assert not os.lstat(os.path.join(directory, name)).st_mode & 0o007, name


_TRY = '''
import os, sys
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
except PermissionError:
    print("refused")
else:
    print("DONE")
'''


# What a student tries, and where: each must be refused.
ATTEMPTS = [
    ("read", "course/gradebook.db"),          # everyone's scores
    ("read", "course/nbgrader_config.py"),    # the grading seed
    ("list", "course/submitted"),             # the class's work
    ("write", "course/submitted/agstate-s1/agstate-lab/agstate"),  # a classmate's collected folder
    ("read", "course/feedback/agstate-s1/agstate-lab/index.html"),
    ("read", "clone/solutions/agstate/state.py"),  # the reference solutions
    ("read", "home-s1/agstate-lab/agstate/state.py"),  # a classmate's working copy (homes 0700, the docs' step)
    ("list", "home-s1/.local/share/jupyter/nbgrader_cache"),  # her submission secret, so her feedback
    ("rename", "exchange/agstate-multiuser"),  # the course's folder in the exchange (sticky bit)
]


def _a_student_is_refused(term, what: str, where: str):
    places = {"course": term.course, "clone": term.clone.lab, "home-s1": Path(pwd.getpwnam(STUDENTS[0]).pw_dir),
              "exchange": term.exchange}
    head, _, rest = where.partition("/")
    path = places[head] / rest
    assert path.exists(), f"{path} should exist for this test to mean anything"
    tried = term.run(STUDENTS[2], f"try {what} {where}", term.students_env / "bin" / "python", "-c", _TRY, what, path)
    assert tried.stdout.strip() == "refused", f"{STUDENTS[2]} could {what} {path}"


def _a_venv_of_another_account_is_explained(term):
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


CHECKS = [_the_term_scores_the_work_and_never_the_link, _the_audit_names_the_student_and_the_file,
          _each_student_fetches_the_summary_page_with_nbgrader, _each_student_lists_the_score_with_nbgrader,
          _the_lms_file_carries_the_final_grade_manual_points_included,
          _nothing_the_product_makes_or_collects_is_open_to_other_accounts, _a_venv_of_another_account_is_explained]


def _a_student_runs_a_check_cell_in_the_hub(term, hub, browser):
    """In the server the hub started from the students' environment, with the bug in his working copy."""
    student = STUDENTS[1]
    page = log_in(browser, hub, student)
    page.goto(f"{hub.url}/user/{student}/lab/tree/{ASSIGNMENT}/04_keep_max.ipynb")
    page.locator(".jp-StatusBar-Widget", has_text="| Idle").first.wait_for(timeout=120_000)
    cell = page.locator(".jp-Notebook .jp-CodeCell", has_text='check("state.keep_max")')
    # The prompt, not the editor: the check cell is locked (read-only), and a click in its editor runs nothing.
    cell.locator(".jp-InputPrompt").click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.locator("li[data-command='notebook:run-cell']").click()  # Run Selected Cell and Do not Advance
    card = cell.locator(".jp-OutputArea-output table")
    expect(card).to_contain_text("state.keep_max", timeout=240_000)
    expect(card).to_contain_text("failing")
    expect(card).to_contain_text("keep_max(0,")  # the counterexample: a score of 0 taken for no score
    expect(cell.locator(".jp-OutputArea")).not_to_contain_text("WITHOUT a sandbox")
    assert page.goto(f"{hub.url}/user/{student}/formgrader").status == 404  # no instructor tools for students
    page.context.close()


def _the_assignment_list_shows_the_score(term, hub, browser):
    student = STUDENTS[0]
    page = log_in(browser, hub, student)
    page.get_by_role("menuitem", name="Nbgrader", exact=True).click()
    expect(page.get_by_role("menuitem", name="Formgrader", exact=True)).to_have_count(0)  # the instructor's has it
    page.get_by_role("menuitem", name="Assignment List", exact=True).click()
    expect(page.locator("#submitted_assignments_list")).to_contain_text(
        re.compile(rf"score {_scores(term)[student]:g} / \d+"), timeout=120_000)
    page.context.close()


def _the_instructor_formgrader_lists_the_submissions(term, hub, browser):
    """The instructor's server, from the instructor's own environment, in the home folder: ~/.jupyter's config."""
    page = log_in(browser, hub, ORDINARY_USER)
    page.get_by_role("menuitem", name="Nbgrader", exact=True).click()
    expect(page.get_by_role("menuitem", name="Formgrader", exact=True)).to_have_count(1)
    page.goto(f"{hub.url}/user/{ORDINARY_USER}/formgrader/manage_submissions/{ASSIGNMENT}")
    table = page.locator("#main-table")
    for student, score in _scores(term).items():
        expect(table).to_contain_text(student, timeout=120_000)
        expect(table.locator("tr", has_text=student)).to_contain_text(f"{score:g} /")
    page.context.close()


HUB_CHECKS = [_a_student_runs_a_check_cell_in_the_hub, _the_assignment_list_shows_the_score,
              _the_instructor_formgrader_lists_the_submissions]


def test_a_term_on_a_shared_server(subtests):
    with a_term() as term:
        for check in CHECKS:
            with subtests.test(msg=check.__name__.strip("_").replace("_", " ")):
                check(term)
        for what, where in ATTEMPTS:
            with subtests.test(msg=f"a student is refused: {what} {where}"):
                _a_student_is_refused(term, what, where)
        # JupyterHub, as root, each account's server started as that account from its own environment.
        servers = {student: term.students_env / "bin" / "jupyterhub-singleuser" for student in STUDENTS}
        servers[ORDINARY_USER] = term.clone.lab / ".venv" / "bin" / "jupyterhub-singleuser"
        with jupyterhub(term.root / "hub", term.students_env, servers) as hub, chromium() as browser:
            for check in HUB_CHECKS:
                with subtests.test(msg=f"JupyterHub: {check.__name__.strip('_').replace('_', ' ')}"):
                    try:
                        check(term, hub, browser)
                    except Exception:
                        print(hub.log.read_text()[-6000:])
                        raise
